// Starts `toolgen lsp` for the spec files and manifests of the workspace's
// tool sets: everything else (diagnostics, completion, hover, definitions,
// quick fixes, formatting) is the server's.
const vscode = require("vscode");
const { LanguageClient } = require("vscode-languageclient/node");

let client;

function activate(context) {
  const command = vscode.workspace.getConfiguration("toolgen").get("path") || "toolgen";
  const server = { command, args: ["lsp"] };
  client = new LanguageClient(
    "toolgen",
    "toolgen",
    { run: server, debug: server },
    {
      documentSelector: [
        { scheme: "file", language: "json" },
        { scheme: "file", language: "yaml" },
      ],
      synchronize: {
        fileEvents: vscode.workspace.createFileSystemWatcher("**/*.{json,yaml,yml}"),
      },
    },
  );
  context.subscriptions.push(client);
  return client.start();
}

function deactivate() {
  return client ? client.stop() : undefined;
}

module.exports = { activate, deactivate };
