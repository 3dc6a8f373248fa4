//! A tool server over one dispatch table, answering two dialects on the same
//! connection:
//!
//! - the EditorMCP JSON-RPC envelope (`editormcp-envelope.md`): `tools/call`
//!   with `params.tool`, `tools/list` (category and tier filters),
//!   `tools/describe`, `server/info`; results `{tool, output, diagnostics}`;
//!   errors with the codes -32700..-32603 and -32000..-32005, `errorType` and
//!   `details`; batches are refused;
//! - standard MCP: `initialize` (protocol versions negotiated), `ping`,
//!   `tools/list` (in pages, with a cursor), `tools/call` with `params.name`
//!   (answered with `content`, `structuredContent`, `isError`),
//!   `notifications/cancelled`, progress, `tools/list_changed`; and MCP
//!   2026-07-28's requests that carry their version in `_meta`, with
//!   `server/discover`.
//!
//! `tools/call` is told apart by its parameters (`tool` vs `name`);
//! `tools/list` answers in MCP form once the connection has sent `initialize`.
//!
//! Every call: the tool must exist, be within the server's tier (and the
//! caller's, when the transport knows it) (-32005), and get arguments that
//! validate against its input schema (-32002, every violation in `details`).
//! Checked calls run concurrently on a bounded pool ([`Server::pool_size`];
//! serial tools one at a time), answered by id as they finish; the tool's
//! time limit is kept by a watchdog (-32003, and the hung handler's thread is
//! abandoned), a handler panic becomes -32603, and a full queue answers
//! "busy" (or, on stdio, stops reading until there is room).
//! Output is deterministic: JSON object keys are sorted, except in a typed
//! tool output, which keeps its type's order (for generated types, the order
//! of the spec's properties).

mod client;
mod compact;
pub(crate) mod content;
mod control;
mod core;
mod entry;
mod envelope;
mod execution;
mod fast;
#[cfg(feature = "http")]
pub mod http;
mod jsonrpc;
mod mcp;
mod modern;
mod output;
mod pool;
mod resource;
#[cfg(feature = "rmcp")]
pub mod rmcp;
mod rounds;
mod stdio;
mod structured;
mod sync;
mod task;
mod tool;
mod typed;
mod variant;
mod wire;

pub use self::client::{Elicited, Sampled, Sampling};
pub use self::content::{Content, EmbeddedResource, PromptMessage, Resource, Role};
pub use self::control::{InFlight, LogLevel};
pub use self::core::{
    DEFAULT_MAX_REQUEST_BYTES, DEFAULT_PAGE_SIZE, DEFAULT_QUEUE_LIMIT, DEFAULT_TIMEOUT, Execution,
    FromServer, Server, Session, register_tools,
};
pub(crate) use self::entry::draft_of;
pub use self::execution::Submitted;
pub use self::mcp::mcp_tool;
pub use self::output::ToolOutput;
pub use self::resource::{
    Prompt, PromptArgument, PromptHandler, ResourceReader, ResourceTemplate, TemplateReader,
};
pub use self::task::TaskSupport;
pub use self::tool::{Call, Handler, ServerInfo, ToolDescriptor};
pub use self::typed::{
    Arguments, ToolInfo, TypedCall, TypedEntry, TypedHandler, Validity, invalid_arguments,
    typed_call, unknown_tool, unserializable_output, whole_numbers_as_integers,
};
pub use self::wire::{MCP_MODERN_VERSIONS, MCP_PROTOCOL_VERSIONS, Outbox, Outgoing};

/// Every text of up to `longest` characters from `alphabet`, shortest first
/// (the tests of escaping: every neighbour of every special character).
#[cfg(test)]
pub(crate) fn every_text(alphabet: &[char], longest: usize) -> Vec<String> {
    let mut texts = vec![String::new()];
    let mut last = vec![String::new()];
    for _ in 0..longest {
        last = last
            .iter()
            .flat_map(|t| alphabet.iter().map(move |c| format!("{t}{c}")))
            .collect();
        texts.extend(last.iter().cloned());
    }
    texts
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use serde_json::{Map, Value, json};

    use super::wire::write_escaped;
    use super::*;
    use std::collections::BTreeMap;

    use crate::error::{ErrorCode, ToolError};
    use crate::json::Json;

    /// A server with no tools yet, handlers run inline.
    fn empty() -> Server {
        let info = ServerInfo {
            name: "t".into(),
            version: "0".into(),
            extra: Map::new(),
        };
        Server::new(info, &["core"], "core").execution(Execution::Inline)
    }

    /// A core, read-only tool taking an optional integer `n` up to 5.
    fn d(id: &str) -> ToolDescriptor {
        ToolDescriptor {
            id: id.into(),
            name: id.into(),
            description: String::new(),
            category: "scene".into(),
            safety_level: "read-only".into(),
            tier: "core".into(),
            input_schema: json!({"type": "object", "properties": {"n": {"type": "integer", "maximum": 5}}, "additionalProperties": false}),
            output_schema: None,
            timeout: Some(DEFAULT_TIMEOUT),
            requires_approval: false,
            notes: None,
            entry: None,
        }
    }

    fn server() -> Server {
        let ok: Handler = Arc::new(|_call, a| {
            let mut o = ToolOutput::new(json!({"z": "é\"\n", "a": [1, 2.5, null], "args": a}));
            o.diagnostics.push("partial".into());
            Ok(o)
        });
        let fails: Handler = Arc::new(|_, _| Err(ToolError::unity("no scene")));
        // An output that is not an object goes out as `{"result": ...}`.
        let mut count = d("a.count");
        count.output_schema = Some(json!({"type": "integer"}));
        let three: Handler = Arc::new(|_, _| Ok(ToolOutput::new(json!(3))));
        // A typed output keeps its type's key order, on both paths.
        #[derive(serde::Serialize)]
        struct Typed {
            z: u8,
            a: u8,
        }
        let typed: Handler = Arc::new(|_, _| {
            Call::new()
                .finish_typed(&Typed { z: 1, a: 2 })
                .map_err(|e| ToolError::execution(e.to_string()))
        });
        empty()
            .tool(d("a.ok"), ok)
            .and_then(|s| s.tool(d("a.fails"), fails))
            .and_then(|s| s.tool(count, three))
            .and_then(|s| s.tool(d("a.typed"), typed))
            .unwrap_or_else(|e| panic!("{e}"))
    }

    /// `handle` on the pool answers as it does inline (with a progress
    /// token too: its notifications go nowhere), and leaves nothing in
    /// flight: the same id is served again at once.
    #[test]
    fn a_call_handle_waits_for_on_the_pool_leaves_nothing_in_flight() {
        let pooled = server().execution(Execution::Worker);
        let inline = server();
        for request in [
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"tool":"a.ok","arguments":{"n":1}}}"#,
            r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"a.ok","arguments":{},"_meta":{"progressToken":"p"}}}"#,
            r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"tool":"a.fails","arguments":{}}}"#,
            r#"{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"tool":"a.ok","arguments":{"n":9}}}"#,
        ] {
            let mut session = Session::default();
            let answer = pooled.handle(&mut session, request.as_bytes());
            let expected = inline.handle(&mut Session::default(), request.as_bytes());
            assert!(answer.is_some(), "{request}");
            assert_eq!(answer, expected, "{request}");
            assert_eq!(session.calls.len(), 0, "{request}");
            assert_eq!(pooled.handle(&mut session, request.as_bytes()), answer);
            // The general path agrees.
            assert_eq!(
                pooled.handle_general(&mut session, request.as_bytes()),
                answer
            );
        }
    }

    /// A typed output of an MCP call is written with its escaped copy beside
    /// it: the answer is what escaping the finished text gives, byte for
    /// byte, inline and on a worker, with and without a progress token (a
    /// call with a control of its own).
    #[test]
    fn a_typed_mcp_answer_copies_the_text_written_beside_the_output() {
        let output = BTreeMap::from([
            ("q\"k".to_owned(), "é\"\\\n\u{1} 𝄞".to_owned()),
            ("a".to_owned(), "plain".to_owned()),
        ]);
        for execution in [Execution::Inline, Execution::Worker] {
            let o = output.clone();
            let typed: TypedHandler = Arc::new(move |call, arguments| {
                typed_call("t.typed", call, arguments, |_, _: Map<String, Value>| {
                    Ok(o.clone())
                })
            });
            let v = json!(output);
            let plain: Handler = Arc::new(move |_, _| Ok(ToolOutput::new(v.clone())));
            let s = empty()
                .execution(execution)
                .typed_tool(d("t.typed"), typed)
                .and_then(|s| s.tool(d("t.plain"), plain))
                .unwrap_or_else(|e| panic!("{e}"));
            for meta in ["", r#","_meta":{"progressToken":"p"}"#] {
                let call = |name: &str| {
                    format!(
                        r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{{"name":"{name}","arguments":{{}}{meta}}}}}"#
                    )
                };
                let typed = s.handle(&mut Session::default(), call("t.typed").as_bytes());
                let plain = s.handle(&mut Session::default(), call("t.plain").as_bytes());
                assert!(typed.is_some() && typed == plain, "{execution:?} {meta}");
                let answer: Value =
                    serde_json::from_slice(&typed.unwrap_or_default()).unwrap_or_default();
                let text = answer["result"]["content"][0]["text"]
                    .as_str()
                    .unwrap_or_default();
                assert_eq!(
                    serde_json::from_str::<Value>(text).ok(),
                    Some(json!(output))
                );
                assert_eq!(answer["result"]["structuredContent"], json!(output));
            }
        }
    }

    /// Content blocks a handler adds go out after the output's text copy and
    /// before the diagnostics (MCP), or as the envelope's `content`; a result
    /// of content alone (its output `null`) has the blocks only, no text copy
    /// and no structured content. Typed and untyped handlers alike, inline
    /// and on a worker.
    #[test]
    fn content_blocks_go_out_beside_the_output() {
        let image = Content::image(b"\x89PNG", "image/png");
        let link = Content::link("file:///plot.png", "plot.png");
        let (i, l) = (image.clone(), link.clone());
        let with: Handler = Arc::new(move |mut call, _| {
            call.add_content(i.clone());
            call.diagnostic("partial");
            Ok(call.finish(json!({"n": 1})).with_content([l.clone()]))
        });
        let i = image.clone();
        let alone: TypedHandler = Arc::new(move |call, arguments| {
            typed_call("t.alone", call, arguments, |call, _: Map<String, Value>| {
                call.add_content(i.clone());
                Ok(())
            })
        });
        for execution in [Execution::Inline, Execution::Worker] {
            let s = empty()
                .execution(execution)
                .tool(d("t.with"), with.clone())
                .and_then(|s| s.typed_tool(d("t.alone"), alone.clone()))
                .unwrap_or_else(|e| panic!("{e}"));
            let answer = |params: &str| -> Value {
                let request = format!(
                    r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{params}}}"#
                );
                let bytes = s.handle(&mut Session::default(), request.as_bytes());
                serde_json::from_slice(&bytes.unwrap_or_default()).unwrap_or_default()
            };
            let to = |c: &Content| serde_json::to_value(c).unwrap_or_default();
            let mcp = answer(r#"{"name":"t.with","arguments":{}}"#);
            assert_eq!(
                mcp["result"]["content"],
                json!([
                    {"type": "text", "text": "{\"n\":1}"},
                    to(&image),
                    to(&link),
                    {"type": "text", "text": "partial"},
                ]),
                "{execution:?}"
            );
            assert_eq!(mcp["result"]["structuredContent"], json!({"n": 1}));
            let envelope = answer(r#"{"tool":"t.with","arguments":{}}"#);
            assert_eq!(
                envelope["result"],
                json!({"tool": "t.with", "output": {"n": 1}, "content": [to(&image), to(&link)],
                    "diagnostics": ["partial"]})
            );
            let alone = answer(r#"{"name":"t.alone","arguments":{}}"#);
            assert_eq!(
                alone["result"],
                json!({"content": [to(&image)], "isError": false}),
                "{execution:?}"
            );
        }
    }

    /// What `s` answers to one request of `method` with `params`, on a
    /// session of its own.
    fn asked(s: &Server, method: &str, params: Value) -> Value {
        let request = json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params});
        let bytes = s.handle(&mut Session::default(), request.to_string().as_bytes());
        serde_json::from_slice(&bytes.unwrap_or_default()).unwrap_or_default()
    }

    /// A server offering two resources (a text, a blob), a template and a
    /// prompt.
    fn offering() -> Server {
        let readme: ResourceReader = Arc::new(|uri| {
            Ok(vec![EmbeddedResource::text(
                uri,
                Some("text/markdown"),
                "# Hi",
            )])
        });
        let logo: ResourceReader = Arc::new(|uri| {
            Ok(vec![EmbeddedResource::blob(
                uri,
                Some("image/png"),
                b"\x89PNG",
            )])
        });
        let review: PromptHandler = Arc::new(|args| {
            let focus = args.get("focus").map_or("anything", String::as_str);
            let text = format!("Review {} for {focus}.", args["path"]);
            Ok(vec![PromptMessage::user(Content::text(text))])
        });
        let mut r = Resource::new("file:///README.md", "README.md");
        r.mime_type = Some("text/markdown".into());
        let mut p = Prompt::new("review")
            .argument("path", "What to review", true)
            .argument("focus", "", false);
        p.description = Some("Reviews a file".into());
        let p = p.completions("path", &["a.rs", "b.rs", "about.md"]);
        let mut day = ResourceTemplate::new("file:///logs/{day}.txt", "log");
        day.completions
            .insert("day".into(), vec!["mon".into(), "tue".into()]);
        let log: TemplateReader = Arc::new(|uri, vars| {
            Ok(vec![EmbeddedResource::text(
                uri,
                None,
                format!("the log of {}", vars["day"]),
            )])
        });
        empty()
            .resource(Resource::new("file:///logo.png", "logo.png"), logo)
            .and_then(|s| s.resource(r, readme))
            .and_then(|s| s.resource_template(day, log))
            .and_then(|s| s.prompt(p, review))
            .unwrap_or_else(|e| panic!("{e}"))
    }

    /// Templates are listed and read with their variables; completion
    /// offers a prompt argument's and a template variable's values by
    /// prefix; a subscription hears of its resource's changes until it ends.
    #[test]
    fn templates_completion_and_subscriptions() {
        let s = offering();
        let ask = |method: &str, params: Value| asked(&s, method, params);
        assert_eq!(
            ask("resources/templates/list", json!({}))["result"],
            json!({"resourceTemplates": [{"uriTemplate": "file:///logs/{day}.txt", "name": "log"}]})
        );
        assert_eq!(
            ask("resources/read", json!({"uri": "file:///logs/mon.txt"}))["result"]["contents"][0]
                ["text"],
            "the log of mon"
        );
        let complete = |r: Value, name: &str, value: &str| {
            ask(
                "completion/complete",
                json!({"ref": r, "argument": {"name": name, "value": value}}),
            )["result"]["completion"]
                .clone()
        };
        assert_eq!(
            complete(json!({"type": "ref/prompt", "name": "review"}), "path", "a"),
            json!({"values": ["a.rs", "about.md"], "total": 2, "hasMore": false})
        );
        assert_eq!(
            complete(
                json!({"type": "ref/resource", "uri": "file:///logs/{day}.txt"}),
                "day",
                "t"
            ),
            json!({"values": ["tue"], "total": 1, "hasMore": false})
        );
        let e = ask(
            "completion/complete",
            json!({"ref": {"type": "ref/prompt", "name": "nope"}, "argument": {"name": "x", "value": ""}}),
        );
        assert_eq!(e["error"]["code"], -32602, "{e}");
        // Subscriptions, on a connection that can be told.
        struct Kept(std::sync::Mutex<Vec<Vec<u8>>>);
        impl Outbox for Kept {
            fn send(&self, message: Outgoing) {
                if let Outgoing::Notification(text) = message {
                    if let Ok(mut k) = self.0.lock() {
                        k.push(text);
                    }
                }
            }
        }
        let kept = Arc::new(Kept(std::sync::Mutex::new(Vec::new())));
        let mut session = Session::with_notifications(kept.clone());
        let mut send = |method: &str, uri: &str| -> Value {
            let request =
                json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": {"uri": uri}});
            let bytes = s.handle(&mut session, request.to_string().as_bytes());
            serde_json::from_slice(&bytes.unwrap_or_default()).unwrap_or_default()
        };
        assert_eq!(
            send("resources/subscribe", "file:///logo.png")["result"],
            json!({})
        );
        assert_eq!(
            send("resources/subscribe", "file:///nope")["error"]["code"],
            -32002
        );
        s.resource_updated("file:///README.md");
        s.resource_updated("file:///logo.png");
        let told = |k: &Kept| k.0.lock().map(|k| k.len()).unwrap_or_default();
        assert_eq!(told(&kept), 1);
        let first: Value = kept
            .0
            .lock()
            .ok()
            .and_then(|k| serde_json::from_slice(&k[0]).ok())
            .unwrap_or_default();
        assert_eq!(
            first,
            json!({"jsonrpc": "2.0", "method": "notifications/resources/updated", "params": {"uri": "file:///logo.png"}})
        );
        assert_eq!(
            send("resources/unsubscribe", "file:///logo.png")["result"],
            json!({})
        );
        s.resource_updated("file:///logo.png");
        assert_eq!(told(&kept), 1, "no news after unsubscribing");
    }

    /// Resources and prompts beside the tools: listed in order, read and
    /// filled in, with MCP's errors for an unknown URI and a missing
    /// argument; the capabilities name them only when there are some.
    #[test]
    fn resources_and_prompts_are_offered_beside_the_tools() {
        let caps = |s: &Server| {
            let init = json!({"protocolVersion": "2025-11-25"});
            asked(s, "initialize", init)["result"]["capabilities"].clone()
        };
        assert_eq!(caps(&empty()).get("resources"), None);
        let s = offering();
        assert_eq!(caps(&s)["resources"], json!({"subscribe": true}));
        assert_eq!(caps(&s)["completions"], json!({}));
        assert_eq!(caps(&s)["prompts"], json!({}));
        let twice = offering().resource(
            Resource::new("file:///logo.png", "again"),
            Arc::new(|_| Ok(Vec::new())),
        );
        assert!(twice.is_err_and(|e| e.contains("already registered")));
        let ask = |method: &str, params: Value| asked(&s, method, params);
        assert_eq!(
            ask("resources/list", json!({}))["result"],
            json!({"resources": [
                {"uri": "file:///README.md", "name": "README.md", "mimeType": "text/markdown"},
                {"uri": "file:///logo.png", "name": "logo.png"},
            ]})
        );
        assert_eq!(
            ask("resources/read", json!({"uri": "file:///logo.png"}))["result"],
            json!({"contents": [{"uri": "file:///logo.png", "mimeType": "image/png", "blob": "iVBORw=="}]})
        );
        let unknown = ask("resources/read", json!({"uri": "file:///nope"}));
        assert_eq!(unknown["error"]["code"], -32002, "{unknown}");
        assert_eq!(
            ask("prompts/list", json!({}))["result"],
            json!({"prompts": [{"name": "review", "description": "Reviews a file", "arguments": [
                {"name": "path", "description": "What to review", "required": true},
                {"name": "focus", "required": false},
            ]}]})
        );
        assert_eq!(
            ask(
                "prompts/get",
                json!({"name": "review", "arguments": {"path": "a.rs"}})
            )["result"],
            json!({"description": "Reviews a file", "messages": [
                {"role": "user", "content": {"type": "text", "text": "Review a.rs for anything."}}
            ]})
        );
        for bad in [
            json!({"name": "review"}),
            json!({"name": "nope"}),
            json!({"name": "review", "arguments": {"path": 1}}),
        ] {
            let e = ask("prompts/get", bad.clone());
            assert_eq!(e["error"]["code"], -32602, "{bad}: {e}");
        }
    }

    #[test]
    fn register_tools_pairs_descriptors_with_calls() {
        fn answer(n: &u8, _: Call, _: Arguments<'_>) -> Result<ToolOutput, ToolError> {
            Ok(ToolOutput::new(json!({ "n": n })))
        }
        const fn info(id: &'static str) -> ToolInfo {
            ToolInfo {
                id,
                name: id,
                description: "",
                category: "scene",
                safety_level: "read-only",
                tier: "core",
                timeout_seconds: Some(30.0),
                requires_approval: false,
                notes: None,
                input_schema: "{}",
                output_schema: None,
                entry: "{}",
                serial: false,
                input_valid: None,
                output_valid: None,
            }
        }
        static TABLE: [ToolInfo; 2] = [info("a.b"), info("c.d")];
        let s = register_tools(
            empty(),
            Arc::new(7),
            &[(&TABLE[0], answer), (&TABLE[1], answer)],
        )
        .unwrap_or_else(|e| panic!("{e}"));
        let out = s.call("a.b", json!({})).map(|o| o.output());
        assert_eq!(out, Ok(json!({"n": 7})));
        assert_eq!(s.descriptors().len(), 2);
        static BAD: ToolInfo = ToolInfo {
            input_schema: r#"{"type": 3}"#,
            ..info("e.f")
        };
        // A serial tool set's tools are serial.
        static SERIAL: ToolInfo = ToolInfo {
            serial: true,
            ..info("s.t")
        };
        let s = register_tools(empty(), Arc::new(7), &[(&SERIAL, answer)])
            .unwrap_or_else(|e| panic!("{e}"));
        assert!(s.entry("s.t").is_some_and(|e| e.serial));
        let refused = register_tools(empty(), Arc::new(7), &[(&BAD, answer)]);
        assert!(refused.err().is_some_and(|e| e.contains("e.f")));
        // A compiled validator decides; the `jsonschema` crate still explains.
        fn only_empty(v: &Json<'_>) -> bool {
            v.as_object().is_some_and(|o| o.is_empty())
        }
        static COMPILED: ToolInfo = ToolInfo {
            input_schema: r#"{"maxProperties": 0}"#,
            input_valid: Some(only_empty),
            ..info("g.h")
        };
        let s = register_tools(empty(), Arc::new(7), &[(&COMPILED, answer)])
            .unwrap_or_else(|e| panic!("{e}"));
        assert!(s.entry("g.h").is_some_and(|e| e.compiled.is_some()));
        assert_eq!(
            s.call("g.h", json!({})).map(|o| o.output()),
            Ok(json!({"n": 7}))
        );
        let e = s.call("g.h", json!({"x": 1})).err();
        assert!(
            e.as_ref()
                .is_some_and(|e| e.code == ErrorCode::InvalidArguments
                    && e.message.contains("more than 0 properties")),
            "{e:?}"
        );
    }

    #[test]
    fn text_is_escaped_exactly_as_serde_json_escapes_it() {
        let mut every_char: String = (0u8..0x80).map(char::from).collect();
        every_char.push_str("é\u{2028}\u{7f}𝄞\\\"");
        // A `"` or `\` at every position of texts longer than a word, alone,
        // in pairs, and last.
        let mut placed = Vec::new();
        for len in [1, 7, 8, 9, 17, 30] {
            for at in 0..len {
                for special in ['"', '\\'] {
                    let mut t: Vec<char> =
                        "abcdefghijklmnopqrstuvwxyz0123".chars().take(len).collect();
                    t[at] = special;
                    t[(at * 7 + 3) % len] = special;
                    placed.push(t.into_iter().collect::<String>());
                }
            }
        }
        // Every text of up to seven characters from a plain one, both
        // escaped ones, a two-byte one and a control character: a word with
        // several bytes to escape, a tail with them, each next to another.
        let texts = every_text(&['a', '"', '\\', 'é', '\u{1f}'], 7);
        // And the same after a word and a half of plain text.
        let shifted: Vec<String> = texts.iter().map(|t| format!("abcdefghijkl{t}")).collect();
        placed.extend(texts);
        placed.extend(shifted);
        for text in placed.iter().map(String::as_str).chain([
            "",
            "plain",
            r#"{"a":"b\"c","d":[1,2.5,null]}"#,
            every_char.as_str(),
            "\n\n",
            "\"",
            "\\\\\"\"",
            // A control character after a quote, in a word and in the tail.
            "\"abcdefghij\nklmnopqrs",
            "abcdefgh\\ijklmno\u{1}",
        ]) {
            let mut ours = vec![b'"'];
            write_escaped(&mut ours, text);
            ours.push(b'"');
            let theirs = serde_json::to_vec(text).unwrap_or_default();
            assert_eq!(
                String::from_utf8_lossy(&ours),
                String::from_utf8_lossy(&theirs)
            );
        }
    }

    #[test]
    fn outputs_are_compact_json_however_they_are_made() {
        #[derive(serde::Serialize)]
        struct Typed {
            b: BTreeMap<&'static str, u8>,
            a: u8,
        }
        let v = json!({"b": {"y": 1, "x": [true]}, "a": "\u{1}"});
        let o = ToolOutput::new(v.clone());
        assert_eq!(o.output_json(), r#"{"a":"\u0001","b":{"x":[true],"y":1}}"#);
        assert_eq!(o.output(), v);
        // A typed output keeps its type's order (a generated type's: the spec's).
        let typed = Typed {
            b: BTreeMap::from([("z", 2), ("c", 3)]),
            a: 1,
        };
        let t = Call::new()
            .finish_typed(&typed)
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(t.output_json(), r#"{"b":{"c":3,"z":2},"a":1}"#);
        assert_eq!(t.output(), json!({"b": {"z": 2, "c": 3}, "a": 1}));
    }

    /// `server()` and `a.echo`, a typed tool with a compiled validator that
    /// answers its input; the count of its calls that got their arguments as text.
    fn server_with_echo() -> (Server, Arc<std::sync::atomic::AtomicUsize>) {
        use std::sync::atomic::{AtomicUsize, Ordering};
        #[derive(serde::Deserialize, serde::Serialize)]
        #[serde(deny_unknown_fields)]
        struct Echo {
            n: Option<i64>,
        }
        fn valid(v: &Json<'_>) -> bool {
            v.as_object().is_some_and(|o| {
                o.keys().all(|k| k == "n")
                    && o.get("n").is_none_or(|n| {
                        crate::check::is_integer(n) && n.as_f64().is_some_and(|f| f <= 5.0)
                    })
            })
        }
        let texts = Arc::new(AtomicUsize::new(0));
        let seen = texts.clone();
        let echo: TypedHandler = Arc::new(move |call, arguments| {
            if matches!(arguments, Arguments::Text(_)) {
                seen.fetch_add(1, Ordering::Relaxed);
            }
            typed_call("a.echo", call, arguments, |_, input: Echo| Ok(input))
        });
        let Some(mut d) = server().descriptors().into_iter().find(|d| d.id == "a.ok") else {
            panic!("a.ok is one of server()'s tools");
        };
        d.id = "a.echo".into();
        d.name = "a.echo".into();
        let mut s = server()
            .typed_tool(d, echo)
            .unwrap_or_else(|e| panic!("{e}"));
        assert!(s.compiled_validator("a.echo", Some(valid)));
        (s, texts)
    }

    #[test]
    fn the_fast_path_answers_byte_for_byte_like_the_general_path() {
        let (s, texts) = server_with_echo();
        let requests = [
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"tool":"a.ok","arguments":{"n":1}}}"#,
            r#"{"jsonrpc":"2.0","id":"x","method":"tools/call","params":{"tool":"a.ok"}}"#,
            r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"tool":"a.fails","arguments":{}}}"#,
            r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"tool":"a.ok","arguments":{"n":9}}}"#,
            r#"{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"tool":"nope","arguments":{}}}"#,
            r#"{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"a.ok","arguments":{"n":2}}}"#,
            r#"{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"a.fails","arguments":{}}}"#,
            r#"{"params":{"arguments":{"n":1},"tool":"a.ok"},"method":"tools/call","id":7,"jsonrpc":"2.0","extra":true}"#,
            r#"{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"a.count","arguments":{}}}"#,
            r#"{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"a.typed","arguments":{}}}"#,
            r#"{"jsonrpc":"2.0","id":10,"method":"tools/call","params":{"tool":"a.typed","arguments":{}}}"#,
            r#"{"jsonrpc":"2.0","id":11,"method":"tools/call","params":{"name":"a.echo","arguments":{"n":2}}}"#,
            r#"{"jsonrpc":"2.0","id":12,"method":"tools/call","params":{"tool":"a.echo","arguments":{ "n" : -3 }}}"#,
            r#"{"jsonrpc":"2.0","id":13,"method":"tools/call","params":{"tool":"a.echo","arguments":{"n":2.0}}}"#,
            r#"{"jsonrpc":"2.0","id":14,"method":"tools/call","params":{"tool":"a.echo","arguments":{"n":1,"n":3}}}"#,
            r#"{"jsonrpc":"2.0","id":15,"method":"tools/call","params":{"tool":"a.echo","arguments":{"n":7}}}"#,
            r#"{"jsonrpc":"2.0","id":16,"method":"tools/call","params":{"tool":"a.echo","arguments":{"n":"x\"y"}}}"#,
            r#"{"jsonrpc":"2.0","id":17,"method":"tools/call","params":{"name":"a.echo","arguments":null,"_meta":{"progressToken":"p"}}}"#,
            r#"{"jsonrpc":"2.0","id":18,"method":"tools/call","params":{"name":"a.echo","arguments":{},"_meta":null}}"#,
            r#"{"jsonrpc":"2.0","id":19,"method":"tools/call","params":{"tool":"a.echo","arguments":{"n":1.5,"m":[1e2]}}}"#,
        ];
        // The fast path's answer: its call started and waited for.
        let fast_answer = |r: &str| -> Option<Vec<u8>> {
            let call = s.fast_call(r.as_bytes())?;
            let (tx, _rx) = std::sync::mpsc::channel();
            let reply: Arc<dyn Outbox> = Arc::new(tx);
            match s.start_call(&Session::default(), call, Some(&reply)) {
                Submitted::Answered(mut out) => {
                    out.push(b'\n');
                    Some(out)
                }
                _ => None,
            }
        };
        for r in requests {
            let fast = fast_answer(r);
            assert!(fast.is_some(), "fast path taken for {r}");
            let general = s.handle_general(&mut Session::default(), r.as_bytes());
            assert_eq!(
                fast.as_deref().map(String::from_utf8_lossy),
                general.as_deref().map(String::from_utf8_lossy),
                "{r}"
            );
        }
        let answer =
            |r: &str| String::from_utf8(fast_answer(r).unwrap_or_default()).unwrap_or_default();
        assert!(answer(requests[8]).contains(r#""structuredContent":{"result":3}"#));
        assert!(answer(requests[9]).contains(r#""structuredContent":{"z":1,"a":2}"#));
        assert!(answer(requests[10]).contains(r#""output":{"z":1,"a":2}"#));
        // Typed calls read their arguments' text, unless a `Value` reads otherwise.
        let before = texts.load(std::sync::atomic::Ordering::Relaxed);
        assert!(answer(requests[11]).contains(r#""structuredContent":{"n":2}"#));
        assert!(answer(requests[13]).contains(r#""output":{"n":2}"#));
        assert!(answer(requests[14]).contains(r#""output":{"n":3}"#));
        assert!(answer(requests[15]).contains("-32002"));
        assert!(answer(requests[17]).contains(r#""structuredContent":{"n":null}"#));
        let after = texts.load(std::sync::atomic::Ordering::Relaxed);
        assert_eq!(after - before, 2, "text for requests 11 and 17 only");
        // Unusual requests go the general way.
        for r in [
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#,
            r#"{"jsonrpc":"1.0","id":1,"method":"tools/call","params":{"tool":"a.ok"}}"#,
            r#"{"jsonrpc":"2.0","id":1.5,"method":"tools/call","params":{"tool":"a.ok"}}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"tool":"a.ok","arguments":[]}}"#,
            r#"{"jsonrpc":"2.0","id":1,"id":2,"method":"tools/call","params":{"tool":"a.ok"}}"#,
            "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"tool\":\"a.ok\"}",
            // Escapes outside the arguments: left to serde_json.
            r#"{"jsonrpc":"2.0","id":"\u0041","method":"tools/call","params":{"tool":"a.echo"}}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":null}"#,
            // A member of `params` twice, even as `null` (serde refuses it; the
            // general path keeps the last).
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"a.echo","name":null}}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"tool":"a.echo","name":null}}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"tool":"a.ok","arguments":null,"arguments":{}}}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"tool":"a.ok","_meta":{"progressToken":null,"progressToken":1}}}"#,
        ] {
            assert!(s.fast_call(r.as_bytes()).is_none(), "{r}");
        }
        // An unknown MCP tool is read fast and answered as a protocol error.
        let unknown = r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"nope"}}"#;
        assert!(
            fast_answer(unknown).is_some_and(|a| String::from_utf8_lossy(&a).contains("-32602"))
        );
    }

    /// A tool whose listing allows tasks (`support`), which runs until `gate`
    /// opens or the call is cancelled (then it says which).
    fn gated(id: &str, support: &str, gate: &Arc<std::sync::atomic::AtomicBool>) -> Server {
        let mut t = d(id);
        t.entry = Some(
            json!({"name": id, "inputSchema": t.input_schema, "execution": {"taskSupport": support}})
                .to_string(),
        );
        let gate = gate.clone();
        let run: Handler = Arc::new(move |call, _| {
            while !gate.load(std::sync::atomic::Ordering::Acquire) && !call.is_cancelled() {
                std::thread::sleep(std::time::Duration::from_millis(5));
            }
            Ok(ToolOutput::new(json!({"cancelled": call.is_cancelled()})))
        });
        empty()
            .execution(Execution::Worker)
            .tool(t, run)
            .and_then(|s| {
                s.tool(
                    d("a.plain"),
                    Arc::new(|_, _| Ok(ToolOutput::new(json!({})))),
                )
            })
            .unwrap_or_else(|e| panic!("{e}"))
    }

    /// A call made a task answers at once; the task is polled, listed,
    /// waited for (the answer going to the waiting request when it comes)
    /// and cancelled; calls that may not be tasks, or must be, are refused.
    #[test]
    fn a_call_runs_as_a_task() {
        use std::sync::atomic::{AtomicBool, Ordering};
        let gate = Arc::new(AtomicBool::new(false));
        let s = gated("slow", "optional", &gate);
        let (tx, rx) = std::sync::mpsc::channel();
        let out: Arc<dyn Outbox> = Arc::new(tx);
        let mut session = Session::with_notifications(out.clone());
        let mut send = |id: u64, method: &str, params: Value| -> Option<Value> {
            let request = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
            match s.submit(&mut session, request.to_string().as_bytes(), &out) {
                Submitted::Answered(bytes) => serde_json::from_slice(&bytes).ok(),
                _ => None,
            }
        };
        let call = json!({"name": "slow", "arguments": {}, "task": {"ttl": 60000}});
        let created = send(1, "tools/call", call.clone()).unwrap_or_default();
        let task = &created["result"]["task"];
        assert_eq!(task["status"], "working", "{created}");
        assert_eq!(task["ttl"], 60000);
        let task_id = task["taskId"].clone();
        let of = json!({ "taskId": task_id });
        let got = send(2, "tasks/get", of.clone()).unwrap_or_default();
        assert_eq!(got["result"]["status"], "working", "{got}");
        // Waiting for the result: answered when the call is done.
        assert_eq!(send(3, "tasks/result", of.clone()), None);
        let listed = send(4, "tasks/list", json!({})).unwrap_or_default();
        assert_eq!(listed["result"]["tasks"][0]["taskId"], task_id);
        gate.store(true, Ordering::Release);
        let mut result = Value::Null;
        let mut statuses = Vec::new();
        while result.is_null() {
            match rx.recv_timeout(std::time::Duration::from_secs(10)) {
                Ok(Outgoing::Response(b)) => {
                    result = serde_json::from_slice(&b).unwrap_or_default()
                }
                Ok(Outgoing::Notification(b)) => {
                    let n: Value = serde_json::from_slice(&b).unwrap_or_default();
                    statuses.push(n["params"]["status"].clone());
                }
                Err(e) => panic!("no result: {e}"),
            }
        }
        assert_eq!(result["id"], 3);
        assert_eq!(
            result["result"]["structuredContent"],
            json!({"cancelled": false})
        );
        assert_eq!(
            result["result"]["_meta"]["io.modelcontextprotocol/related-task"]["taskId"],
            task_id
        );
        assert_eq!(statuses, [json!("completed")]);
        let got = send(5, "tasks/get", of.clone()).unwrap_or_default();
        assert_eq!(got["result"]["status"], "completed");
        // Asked again once done: the same answer, at once.
        let again = send(6, "tasks/result", of.clone()).unwrap_or_default();
        assert_eq!(
            again["result"]["structuredContent"],
            json!({"cancelled": false})
        );
        let cancel = send(7, "tasks/cancel", of).unwrap_or_default();
        assert_eq!(cancel["error"]["code"], -32602, "{cancel}");

        // Cancelled while it runs: the handler sees it, the result is an error.
        gate.store(false, Ordering::Release);
        let created = send(8, "tools/call", call).unwrap_or_default();
        let of = json!({ "taskId": created["result"]["task"]["taskId"] });
        let cancelled = send(9, "tasks/cancel", of.clone()).unwrap_or_default();
        assert_eq!(cancelled["result"]["status"], "cancelled", "{cancelled}");
        let none = send(10, "tasks/result", of).unwrap_or_default();
        assert_eq!(none["error"]["code"], -32602, "{none}");

        // Invalid arguments: a failed task whose answer says why.
        let bad = json!({"name": "slow", "arguments": {"n": 9}, "task": {}});
        let created = send(11, "tools/call", bad).unwrap_or_default();
        let of = json!({ "taskId": created["result"]["task"]["taskId"] });
        let failed = send(12, "tasks/get", of.clone()).unwrap_or_default();
        assert_eq!(failed["result"]["status"], "failed", "{failed}");
        let answer = send(13, "tasks/result", of).unwrap_or_default();
        assert_eq!(answer["result"]["isError"], true, "{answer}");

        // Refused: a task of a tool that takes none; an unknown task.
        let plain = json!({"name": "a.plain", "arguments": {}, "task": {}});
        let refused = send(14, "tools/call", plain).unwrap_or_default();
        assert_eq!(refused["error"]["code"], -32601, "{refused}");
        let unknown = send(15, "tasks/get", json!({"taskId": "nope"})).unwrap_or_default();
        assert_eq!(unknown["error"]["code"], -32602);
        let caps =
            send(16, "initialize", json!({"protocolVersion": "2025-11-25"})).unwrap_or_default();
        assert_eq!(
            caps["result"]["capabilities"]["tasks"]["requests"],
            json!({"tools": {"call": {}}})
        );
    }

    /// A tool that must be a task is refused as a plain call, and without
    /// an outbox `tasks/result` waits for the answer.
    #[test]
    fn a_required_task_and_a_waited_result() {
        let gate = Arc::new(std::sync::atomic::AtomicBool::new(true));
        let s = gated("job", "required", &gate);
        let plain = asked(&s, "tools/call", json!({"name": "job", "arguments": {}}));
        assert_eq!(plain["error"]["code"], -32601, "{plain}");
        let created = asked(&s, "tools/call", json!({"name": "job", "task": {}}));
        let id = created["result"]["task"]["taskId"].clone();
        let done = asked(&s, "tasks/result", json!({ "taskId": id }));
        assert_eq!(
            done["result"]["structuredContent"],
            json!({"cancelled": false}),
            "{done}"
        );
        let mut session = Session::default();
        for r in [
            r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25"}}"#,
            r#"{"jsonrpc":"2.0","id":2,"method":"tools/list"}"#,
        ] {
            let listing = s.handle(&mut session, r.as_bytes()).unwrap_or_default();
            let listing = String::from_utf8_lossy(&listing);
            assert!(
                r.contains("initialize") || listing.contains("taskSupport"),
                "{listing}"
            );
        }
    }
}
