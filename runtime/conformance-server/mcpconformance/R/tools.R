# The conformance suite's tools, as the Rust ones in runtime/conformance-server answer them.
# A tool's value is NULL (the spec has no output schema): what it says is its content blocks.

# A PNG of one red pixel.
png_bytes <- jsonlite::base64_dec(
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAAAAAA6fptVAAAACklEQVR42mNoAAAAggCB2kUIOwAAAABJRU5ErkJggg==")

# A WAV of eight silent 8-bit samples at 8 kHz.
wav_bytes <- function() {
  le <- function(x, size) writeBin(as.integer(x), raw(), size = size, endian = "little")
  c(charToRaw("RIFF"), le(36 + 8, 4), charToRaw("WAVEfmt "), le(16, 4),
    le(1, 2), le(1, 2), le(8000, 4), le(8000, 4), le(1, 2), le(8, 2),
    charToRaw("data"), le(8, 4), as.raw(rep(0x80, 8)))
}

# A result of content blocks alone.
blocks <- function(...) {
  structure(list(output = NULL, content = list(...)), class = "toolgen_result")
}
text_block <- function(text) list(type = "text", text = text)
said <- function(text) blocks(text_block(text))

# What an elicitation gave, as the tool's text.
elicited <- function(answer) {
  if (identical(answer$action, "accept")) {
    content <- jsonlite::toJSON(answer$content, auto_unbox = TRUE)
    said(paste0("User response: action=accept, content=", content))
  } else {
    said(paste0("User response: action=", answer$action))
  }
}

test_simple_text <- function() said("This is a simple text response for testing.")

test_image_content <- function() {
  blocks(list(type = "image", bytes = png_bytes, mimeType = "image/png"))
}

test_audio_content <- function() {
  blocks(list(type = "audio", bytes = wav_bytes(), mimeType = "audio/wav"))
}

test_embedded_resource <- function() {
  blocks(list(type = "resource", resource = list(
    uri = "test://embedded-resource", mimeType = "text/plain",
    text = "This is an embedded resource content.")))
}

test_multiple_content_types <- function() {
  data <- as.character(jsonlite::toJSON(list(test = "data", value = 123L), auto_unbox = TRUE))
  blocks(text_block("Multiple content types test:"),
         list(type = "image", bytes = png_bytes, mimeType = "image/png"),
         list(type = "resource", resource = list(
           uri = "test://mixed-content-resource", mimeType = "application/json", text = data)))
}

test_tool_with_logging <- function() {
  toolgen_log("info", "Tool execution started")
  Sys.sleep(0.05)
  toolgen_log("info", "Tool processing data")
  Sys.sleep(0.05)
  toolgen_log("info", "Tool execution completed")
  said("Tool with logging executed successfully")
}

test_tool_with_progress <- function() {
  for (done in c(0, 50, 100)) {
    if (done > 0) Sys.sleep(0.05)
    toolgen_progress(done, 100)
  }
  said("Tool with progress executed successfully")
}

test_error_handling <- function() {
  stop("This tool intentionally returns an error for testing", call. = FALSE)
}

test_sampling <- function(prompt) {
  answer <- toolgen_sample(prompt, max_tokens = 100L)
  said(paste0("LLM response: ", answer$content$text))
}

test_elicitation <- function(message) {
  schema <- list(type = "object", properties = list(
    username = list(type = "string", description = "User's response"),
    email = list(type = "string", description = "User's email address")),
    required = list("username", "email"))
  elicited(toolgen_elicit(message, schema))
}

test_elicitation_url <- function(url) {
  id <- "conformance-url-1"
  answer <- toolgen_elicit_url("Open this page to authorize.", url, id)
  if (identical(answer$action, "accept")) toolgen_elicitation_complete(id)
  elicited(answer)
}

test_elicitation_sep1034_defaults <- function() {
  schema <- list(type = "object", properties = list(
    name = list(type = "string", default = "John Doe"),
    age = list(type = "integer", default = 30L),
    score = list(type = "number", default = 95.5),
    status = list(type = "string", enum = list("active", "inactive", "pending"), default = "active"),
    verified = list(type = "boolean", default = TRUE)))
  elicited(toolgen_elicit("Please review and update the form fields with defaults", schema))
}

test_elicitation_sep1330_enums <- function() {
  options <- list("option1", "option2", "option3")
  titled <- list(list(const = "value1", title = "First Option"),
                 list(const = "value2", title = "Second Option"),
                 list(const = "value3", title = "Third Option"))
  schema <- list(type = "object", properties = list(
    untitledSingle = list(type = "string", enum = options),
    titledSingle = list(type = "string", oneOf = titled),
    legacyEnum = list(type = "string", enum = options,
                      enumNames = list("Option One", "Option Two", "Option Three")),
    untitledMulti = list(type = "array", items = list(type = "string", enum = options)),
    titledMulti = list(type = "array", items = list(anyOf = titled))))
  elicited(toolgen_elicit("Please select options from the enum fields", schema))
}

json_schema_2020_12_tool <- function(name = NULL, address = NULL) {
  said(paste0("Received name: ", if (is.null(name)) "" else name))
}
