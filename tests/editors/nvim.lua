-- Neovim's own LSP client against `toolgen lsp`: opens the spec given on
-- the command line, waits for toolgen's diagnostics, asks for a hover and
-- the quick fixes there, and writes what it got as JSON to $TOOLGEN_OUT.
-- Run headless by `cargo xtask test` (xtask/src/editors.rs). Uses the API
-- of Neovim 0.7 (Debian 12's), which later versions keep.
local out = os.getenv("TOOLGEN_OUT")
local result = { diagnostics = {}, errors = {} }

local function finish()
  local f = io.open(out, "w")
  f:write(vim.fn.json_encode(result))
  f:close()
  vim.cmd("qa!")
end

local function run()
  local buf = vim.api.nvim_get_current_buf()
  local id = vim.lsp.start_client({
    name = "toolgen",
    cmd = { os.getenv("TOOLGEN_BIN"), "lsp" },
    root_dir = os.getenv("TOOLGEN_ROOT"),
  })
  vim.lsp.buf_attach_client(buf, id)
  vim.wait(60000, function()
    return #vim.diagnostic.get(buf) > 0
  end, 50)
  for _, d in ipairs(vim.diagnostic.get(buf)) do
    local lsp = (d.user_data or {}).lsp or {}
    table.insert(result.diagnostics, {
      lnum = d.lnum, col = d.col, end_col = d.end_col,
      code = d.code or lsp.code, message = d.message, severity = d.severity,
    })
  end
  local first = vim.diagnostic.get(buf)[1]
  if first then
    local position = { line = first.lnum, character = first.col + 1 }
    local doc = { uri = vim.uri_from_bufnr(buf) }
    local hover = vim.lsp.buf_request_sync(buf, "textDocument/hover",
      { textDocument = doc, position = position }, 20000)
    for _, r in pairs(hover or {}) do
      if r.result then result.hover = r.result.contents.value end
      if r.err then table.insert(result.errors, r.err.message) end
    end
    local lsp = (first.user_data or {}).lsp
    local range = { start = position, ["end"] = position }
    local actions = vim.lsp.buf_request_sync(buf, "textDocument/codeAction",
      { textDocument = doc, range = range, context = { diagnostics = { lsp } } }, 20000)
    result.actions = {}
    for _, r in pairs(actions or {}) do
      for _, a in ipairs(r.result or {}) do table.insert(result.actions, a.title) end
    end
  end
end

-- Once the file named on the command line is loaded.
vim.api.nvim_create_autocmd("VimEnter", {
  callback = function()
    local ok, err = pcall(run)
    if not ok then table.insert(result.errors, tostring(err)) end
    finish()
  end,
})
