//! `toolgen lsp`: a language server over stdio for spec files (EditorMCP
//! JSON, RAVE YAML, MCP tool JSON), their `*.schema.json` documents and
//! `toolset.yaml`, on `lsp-server` and `lsp-types` (rust-analyzer's).
//!
//! One thread answers the editor in order. Edits change the open documents'
//! texts ([`world::World`]); 25 ms after the last one the folder is checked
//! again, by the loader and rules `toolgen validate` runs, and the
//! diagnostics that changed are published. Requests (completion, hover,
//! definition, code actions, formatting) are answered from the texts as
//! they are and the last check. A request that fails is answered with an
//! error and the server carries on: nothing an editor sends ends it but
//! `exit`.

mod assist;
mod cursor;
mod format;
mod keywords;
mod navigate;
mod text;
mod world;

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::PathBuf;
use std::time::{Duration, Instant};

use lsp_server::{Connection, ErrorCode, Message, Notification, Request, Response};
use lsp_types::{
    CodeAction, CodeActionKind, CodeActionOrCommand, Location, PublishDiagnosticsParams, TextEdit,
    Uri, WorkspaceEdit,
};
use serde_json::{Value, json};

use self::text::{Lines, path_of, uri_of};
use self::world::World;

/// How long after an edit the folder is checked again: edits typed faster
/// than this are checked together.
const DEBOUNCE: Duration = Duration::from_millis(25);

/// Serves one editor over stdin and stdout until it says `exit`.
pub fn run() -> Result<(), String> {
    let (connection, io) = Connection::stdio();
    let served = serve(&connection);
    drop(connection);
    io.join()
        .map_err(|e| format!("the editor's connection broke: {e}"))?;
    served
}

fn serve(connection: &Connection) -> Result<(), String> {
    let (id, params) = connection.initialize_start().map_err(|e| e.to_string())?;
    let mut world = World::new(root_of(&params));
    let result = json!({
        "capabilities": capabilities(),
        "serverInfo": {"name": "toolgen", "version": env!("CARGO_PKG_VERSION")},
    });
    (connection.initialize_finish(id, result)).map_err(|e| e.to_string())?;
    let watch = params.pointer("/capabilities/workspace/didChangeWatchedFiles/dynamicRegistration");
    if watch == Some(&Value::Bool(true)) {
        let watchers = ["**/*.json", "**/*.yaml", "**/*.yml"].map(|g| json!({"globPattern": g}));
        let register = json!({"registrations": [{
            "id": "toolgen-watch",
            "method": "workspace/didChangeWatchedFiles",
            "registerOptions": {"watchers": watchers},
        }]});
        let request = Request::new(0.into(), "client/registerCapability".to_owned(), register);
        send(connection, request.into());
    }
    world.discover();
    let mut due = Some(Instant::now());
    // The documents edited since the last check.
    let mut edited: Vec<PathBuf> = Vec::new();
    loop {
        let message = match due {
            Some(at) => match connection.receiver.recv_deadline(at) {
                Ok(m) => m,
                Err(e) if e.is_timeout() => {
                    due = None;
                    let edited = std::mem::take(&mut edited);
                    let alone = catch_unwind(AssertUnwindSafe(|| world.check_edited(&edited)));
                    publish(connection, alone);
                    // Typed on meanwhile: the folder is checked after that.
                    if connection.receiver.is_empty() {
                        check(connection, &mut world);
                    } else {
                        due = Some(Instant::now() + DEBOUNCE);
                    }
                    continue;
                }
                Err(_) => return Ok(()),
            },
            None => match connection.receiver.recv() {
                Ok(m) => m,
                Err(_) => return Ok(()),
            },
        };
        match message {
            Message::Request(request) => {
                if connection
                    .handle_shutdown(&request)
                    .map_err(|e| e.to_string())?
                {
                    return Ok(());
                }
                // The first check is what requests know the folder from.
                if world.loaded.is_none() && due.take().is_some() {
                    check(connection, &mut world);
                }
                let id = request.id.clone();
                let response = match catch_unwind(AssertUnwindSafe(|| answer(&world, request))) {
                    Ok(Ok(result)) => Response::new_ok(id, result),
                    Ok(Err((code, message))) => Response::new_err(id, code as i32, message),
                    Err(_) => {
                        let message = "toolgen failed on this request (a bug: please report it)";
                        Response::new_err(id, ErrorCode::InternalError as i32, message.to_owned())
                    }
                };
                send(connection, response.into());
            }
            Message::Notification(n) => {
                let changed = n
                    .params
                    .pointer("/textDocument/uri")
                    .and_then(Value::as_str);
                let changed = (n.method == "textDocument/didChange")
                    .then(|| changed.and_then(|u| path_of(&u.parse().ok()?)))
                    .flatten();
                if catch_unwind(AssertUnwindSafe(|| notice(&mut world, n))).unwrap_or(true) {
                    due = Some(Instant::now() + DEBOUNCE);
                    edited.extend(changed);
                }
            }
            Message::Response(_) => {}
        }
    }
}

fn send(connection: &Connection, message: Message) {
    // The editor hung up: the next receive ends the loop.
    let _ = connection.sender.send(message);
}

/// The folder the editor opened: its first workspace folder, else its root.
fn root_of(params: &Value) -> Option<PathBuf> {
    let uri = (params.pointer("/workspaceFolders/0/uri"))
        .or_else(|| params.get("rootUri"))
        .and_then(Value::as_str)
        .and_then(|u| u.parse::<Uri>().ok())
        .and_then(|u| path_of(&u));
    let path = params
        .get("rootPath")
        .and_then(Value::as_str)
        .map(PathBuf::from);
    uri.or(path).or_else(|| std::env::current_dir().ok())
}

fn capabilities() -> Value {
    json!({
        "positionEncoding": "utf-16",
        "textDocumentSync": {"openClose": true, "change": 2, "save": {"includeText": false}},
        "completionProvider": {"triggerCharacters": ["\"", ":", " ", "/", "#", "-"]},
        "hoverProvider": true,
        "definitionProvider": true,
        "codeActionProvider": {"codeActionKinds": ["quickfix"]},
        "documentFormattingProvider": true,
    })
}

/// Checks the folder and publishes the diagnostics that changed.
fn check(connection: &Connection, world: &mut World) {
    publish(connection, catch_unwind(AssertUnwindSafe(|| world.check())));
}

type Checked = std::thread::Result<Vec<(Uri, Vec<lsp_types::Diagnostic>)>>;

fn publish(connection: &Connection, checked: Checked) {
    let Ok(changed) = checked else {
        let message = "toolgen failed checking the folder (a bug: please report it)";
        let params = json!({"type": 1, "message": message});
        let n = Notification::new("window/showMessage".to_owned(), params);
        send(connection, n.into());
        return;
    };
    for (uri, diagnostics) in changed {
        let params = PublishDiagnosticsParams::new(uri, diagnostics, None);
        let n = Notification::new("textDocument/publishDiagnostics".to_owned(), params);
        send(connection, n.into());
    }
}

/// Takes in a notification; whether the folder is to be checked again.
fn notice(world: &mut World, n: Notification) -> bool {
    let p = &n.params;
    let path = (p.pointer("/textDocument/uri").and_then(Value::as_str))
        .and_then(|u| u.parse::<Uri>().ok())
        .and_then(|u| Some((path_of(&u)?, u)));
    match (n.method.as_str(), path) {
        ("textDocument/didOpen", Some((path, uri))) => {
            let Some(text) = p.pointer("/textDocument/text").and_then(Value::as_str) else {
                return false;
            };
            std::sync::Arc::make_mut(&mut world.overlay).insert(&path, text.to_owned());
            world.open.insert(path, uri);
            true
        }
        ("textDocument/didChange", Some((path, _))) => {
            let Some(mut text) = world.overlay.text_of(&path).map(str::to_owned) else {
                return false;
            };
            let changes = p.get("contentChanges").and_then(Value::as_array);
            for change in changes.into_iter().flatten() {
                apply(&mut text, change);
            }
            std::sync::Arc::make_mut(&mut world.overlay).insert(&path, text);
            true
        }
        ("textDocument/didClose", Some((path, _))) => {
            std::sync::Arc::make_mut(&mut world.overlay).remove(&path);
            world.open.remove(&path);
            true
        }
        ("textDocument/didSave", Some((path, _))) => {
            if is_manifest(&path) {
                world.discover();
            }
            true
        }
        ("workspace/didChangeWatchedFiles", _) => {
            let changes = p.get("changes").and_then(Value::as_array);
            let manifests = (changes.into_iter().flatten())
                .filter_map(|c| c.get("uri")?.as_str()?.parse::<Uri>().ok())
                .filter_map(|u| path_of(&u))
                .any(|path| is_manifest(&path));
            if manifests {
                world.discover();
            }
            true
        }
        _ => false,
    }
}

fn is_manifest(path: &std::path::Path) -> bool {
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
    crate::manifest::MANIFEST_NAMES.contains(&name)
}

/// Applies one `contentChanges` entry: a range replaced, or the whole text.
fn apply(text: &mut String, change: &Value) {
    let Some(new) = change.get("text").and_then(Value::as_str) else {
        return;
    };
    let range = change
        .get("range")
        .cloned()
        .map(serde_json::from_value::<lsp_types::Range>);
    match range {
        Some(Ok(range)) => {
            let lines = Lines::new(text);
            let (start, end) = (lines.offset(range.start), lines.offset(range.end));
            text.replace_range(start..end.max(start), new);
        }
        _ => *text = new.to_owned(),
    }
}

type Answer = Result<Value, (ErrorCode, String)>;

/// The answer to a request.
fn answer(world: &World, request: Request) -> Answer {
    let p = &request.params;
    let uri: Option<Uri> =
        (p.pointer("/textDocument/uri").and_then(Value::as_str)).and_then(|u| u.parse().ok());
    let Some(uri) = uri else {
        return Err((
            ErrorCode::MethodNotFound,
            format!("no `{}` here", request.method),
        ));
    };
    let doc = path_of(&uri).and_then(|path| world.doc(&path));
    let Some(doc) = doc else {
        return Ok(Value::Null);
    };
    let lines = Lines::new(&doc.text);
    let position = (p.get("position").cloned())
        .and_then(|v| serde_json::from_value::<lsp_types::Position>(v).ok())
        .unwrap_or_default();
    let offset = lines.offset(position);
    let value = match request.method.as_str() {
        "textDocument/completion" => json!(assist::completion(&doc, offset)),
        "textDocument/hover" => {
            let here = world.published.get(&doc.path).into_iter().flatten();
            let rules: Vec<&crate::diag::Rule> = here
                .filter(|d| d.range.start <= position && position <= d.range.end)
                .filter_map(|d| match &d.code {
                    Some(lsp_types::NumberOrString::String(c)) => crate::diag::find_rule(c),
                    _ => None,
                })
                .collect();
            json!(assist::hover(&doc, offset, &rules))
        }
        "textDocument/definition" => {
            let place = navigate::definition(&doc, offset);
            let location = place.and_then(|place| {
                let range = Lines::new(&place.text)
                    .range(place.span.start as usize, place.span.end as usize);
                Some(Location::new(uri_of(&place.path)?, range))
            });
            json!(location)
        }
        "textDocument/codeAction" => {
            let range = (p.get("range").cloned())
                .and_then(|v| serde_json::from_value::<lsp_types::Range>(v).ok())
                .unwrap_or_default();
            json!(code_actions(world, &doc.path, &uri, range))
        }
        "textDocument/formatting" => {
            let size = p
                .pointer("/options/tabSize")
                .and_then(Value::as_u64)
                .unwrap_or(2);
            let tabs = p.pointer("/options/insertSpaces") == Some(&Value::Bool(false));
            let indent = if tabs {
                "\t".to_owned()
            } else {
                " ".repeat(size.min(16) as usize)
            };
            let formatted = (!doc.yaml)
                .then(|| format::json(&doc.text, &indent))
                .flatten();
            let edits = formatted
                .filter(|f| *f != doc.text)
                .map(|f| vec![TextEdit::new(lines.range(0, doc.text.len()), f)]);
            json!(edits)
        }
        other => return Err((ErrorCode::MethodNotFound, format!("no `{other}` here"))),
    };
    Ok(value)
}

/// The quick fixes of the diagnostics that touch `range`: each applies the
/// edit its diagnostic suggests.
fn code_actions(
    world: &World,
    path: &std::path::Path,
    uri: &Uri,
    range: lsp_types::Range,
) -> Vec<CodeActionOrCommand> {
    let here = world.published.get(path).into_iter().flatten();
    here.filter(|d| d.range.start <= range.end && range.start <= d.range.end)
        .filter_map(|d| {
            let fix = d.data.as_ref()?;
            let title = fix.get("title")?.as_str()?.to_owned();
            let range = serde_json::from_value(fix.get("range")?.clone()).ok()?;
            let new_text = fix.get("newText")?.as_str()?.to_owned();
            let changes = [(uri.clone(), vec![TextEdit::new(range, new_text)])];
            Some(CodeActionOrCommand::CodeAction(CodeAction {
                title,
                kind: Some(CodeActionKind::QUICKFIX),
                diagnostics: Some(vec![d.clone()]),
                edit: Some(WorkspaceEdit::new(changes.into_iter().collect())),
                is_preferred: Some(true),
                ..CodeAction::default()
            }))
        })
        .collect()
}
