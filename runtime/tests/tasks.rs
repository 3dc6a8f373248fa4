//! MCP 2026-07-28's tasks extension (`io.modelcontextprotocol/tasks`): a
//! call of a tool that may run long, from a client that declares the
//! extension, becomes a task; the client polls `tasks/get`, answers the
//! handler's questions with `tasks/update` and cancels with `tasks/cancel`.
//! No timing is asserted: polls end when the status changes, and a
//! generous limit turns a hang into a failure.

mod common;

use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use toolgen_runtime::server::Elicited;
use toolgen_runtime::{Handler, Server, ServerInfo, Session, ToolDescriptor, ToolOutput};

/// Long enough never to be reached when things work.
const PATIENCE: Duration = Duration::from_secs(20);

const TASKS: &str = "io.modelcontextprotocol/tasks";

/// A tool whose listing says how it may be a task.
fn descriptor(id: &str, support: &str) -> ToolDescriptor {
    let input_schema = json!({"type": "object"});
    let entry = json!({"name": id, "inputSchema": input_schema,
        "execution": {"taskSupport": support}});
    ToolDescriptor {
        entry: Some(entry.to_string()),
        ..common::descriptor(id, input_schema)
    }
}

/// `greet` asks the user's name and greets them; `job` runs until it is
/// cancelled; `must` runs only as a task; `plain` never does.
fn server() -> Server {
    let greet: Handler = Arc::new(|call, _| {
        let schema = json!({"type": "object", "properties": {"name": {"type": "string"}}});
        let name = match call.elicit("What is your name?", schema, PATIENCE) {
            Elicited::Accepted(content) => content["name"].clone(),
            other => json!(format!("{other:?}")),
        };
        Ok(ToolOutput::new(json!({ "hello": name })))
    });
    let job: Handler = Arc::new(|call, _| {
        let until = Instant::now() + PATIENCE;
        while !call.is_cancelled() && Instant::now() < until {
            std::thread::sleep(Duration::from_millis(2));
        }
        Ok(ToolOutput::new(json!({"cancelled": call.is_cancelled()})))
    });
    let done: Handler = Arc::new(|_, _| Ok(ToolOutput::new(json!({"done": true}))));
    Server::new(ServerInfo::new("tasks-test", "0.1.0"), &["core"], "core")
        .tool(descriptor("greet", "optional"), greet)
        .and_then(|s| s.tool(descriptor("job", "optional"), job))
        .and_then(|s| s.tool(descriptor("must", "required"), done.clone()))
        .and_then(|s| s.tool(descriptor("plain", "forbidden"), done))
        .unwrap_or_else(|e| panic!("{e}"))
}

/// A 2026-07-28 request's `_meta`, the client declaring `capabilities`.
fn meta(capabilities: Value) -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": capabilities,
    })
}

fn with_tasks() -> Value {
    meta(json!({"extensions": {TASKS: {}}, "elicitation": {}}))
}

struct Client {
    server: Server,
    session: Session,
    next: u64,
}

impl Client {
    fn new() -> Client {
        Client {
            server: server(),
            session: Session::default(),
            next: 0,
        }
    }

    /// The response to `method` with `params` and `meta` as its `_meta`.
    fn send(&mut self, method: &str, mut params: Value, meta: Value) -> Value {
        self.next += 1;
        params["_meta"] = meta;
        let r = json!({"jsonrpc": "2.0", "id": self.next, "method": method, "params": params});
        let out = self
            .server
            .handle(&mut self.session, r.to_string().as_bytes())
            .unwrap_or_default();
        serde_json::from_slice(&out).unwrap_or_default()
    }

    fn call(&mut self, tool: &str, meta: Value) -> Value {
        self.send("tools/call", json!({"name": tool, "arguments": {}}), meta)
    }

    /// `tasks/get` of `task` until its status is no longer `from`.
    fn poll(&mut self, task: &Value, from: &str) -> Value {
        let until = Instant::now() + PATIENCE;
        loop {
            let got = self.send("tasks/get", json!({"taskId": task}), with_tasks());
            if got["result"]["status"] != from || Instant::now() > until {
                return got["result"].clone();
            }
            std::thread::sleep(Duration::from_millis(2));
        }
    }
}

#[test]
fn a_task_asks_the_user_and_is_polled_to_its_result() {
    let mut c = Client::new();
    let discovered = c.send("server/discover", json!({}), meta(json!({})));
    assert_eq!(
        discovered["result"]["capabilities"]["extensions"][TASKS],
        json!({}),
        "{discovered}"
    );
    let created = c.call("greet", with_tasks())["result"].clone();
    assert_eq!(created["resultType"], "task", "{created}");
    assert_eq!(created["status"], "working");
    assert!(created["ttlMs"].is_u64() && created["pollIntervalMs"].is_u64());
    assert_eq!(
        created["_meta"]["io.modelcontextprotocol/serverInfo"]["name"],
        "tasks-test"
    );
    let task = created["taskId"].clone();
    let asking = c.poll(&task, "working");
    assert_eq!(asking["status"], "input_required", "{asking}");
    assert_eq!(asking["resultType"], "complete");
    let requests = asking["inputRequests"]
        .as_object()
        .cloned()
        .unwrap_or_default();
    assert_eq!(requests.len(), 1, "{asking}");
    let (key, question) = requests
        .iter()
        .next()
        .map(|(k, q)| (k.clone(), q.clone()))
        .unwrap_or_default();
    assert_eq!(question["method"], "elicitation/create");
    assert_eq!(question["params"]["message"], "What is your name?");
    // An answer to a key not asked is ignored; the right one is taken.
    let answers = json!({"nope": {"action": "decline"},
        key.clone(): {"action": "accept", "content": {"name": "Ada"}}});
    let ack = c.send(
        "tasks/update",
        json!({"taskId": task, "inputResponses": answers}),
        with_tasks(),
    );
    assert_eq!(ack["result"]["resultType"], "complete", "{ack}");
    let mut done = c.poll(&task, "input_required");
    if done["status"] == "working" {
        done = c.poll(&task, "working");
    }
    assert_eq!(done["status"], "completed", "{done}");
    assert_eq!(done["result"]["structuredContent"], json!({"hello": "Ada"}));
    assert_eq!(done["result"]["isError"], false);
}

#[test]
fn a_task_is_cancelled_and_the_handler_sees_it() {
    let mut c = Client::new();
    let created = c.call("job", with_tasks())["result"].clone();
    let task = created["taskId"].clone();
    let ack = c.send("tasks/cancel", json!({"taskId": task}), with_tasks());
    assert_eq!(ack["result"]["resultType"], "complete", "{ack}");
    let got = c.send("tasks/get", json!({"taskId": task}), with_tasks());
    assert_eq!(got["result"]["status"], "cancelled", "{got}");
    assert!(got["result"].get("result").is_none());
    // Cancelling again is acknowledged too.
    let again = c.send("tasks/cancel", json!({"taskId": task}), with_tasks());
    assert!(again.get("result").is_some(), "{again}");
}

#[test]
fn the_server_decides_and_the_extension_is_declared_or_refused() {
    let mut c = Client::new();
    // Without the extension: a plain call, or -32021 for a tool that must be a task.
    let plain = c.call("greet", meta(json!({})));
    assert_eq!(plain["result"]["resultType"], "complete", "{plain}");
    assert_eq!(
        plain["result"]["structuredContent"],
        json!({"hello": "Unsupported"})
    );
    let must = c.call("must", meta(json!({})));
    assert_eq!(must["error"]["code"], -32021, "{must}");
    assert_eq!(
        must["error"]["data"]["requiredCapabilities"]["extensions"][TASKS],
        json!({})
    );
    // With it: a tool that may not be a task is answered as it is.
    let answered = c.call("plain", with_tasks());
    assert_eq!(
        answered["result"]["structuredContent"],
        json!({"done": true})
    );
    let task = c.call("must", with_tasks())["result"]["taskId"].clone();
    assert_eq!(
        c.poll(&task, "working")["result"]["structuredContent"],
        json!({"done": true})
    );
    // The extension's methods need it declared; 2025-11-25's are not its.
    let undeclared = c.send("tasks/get", json!({"taskId": task}), meta(json!({})));
    assert_eq!(undeclared["error"]["code"], -32021, "{undeclared}");
    for method in ["tasks/list", "tasks/result"] {
        let r = c.send(method, json!({"taskId": task}), with_tasks());
        assert_eq!(r["error"]["code"], -32601, "{method}: {r}");
    }
    let unknown = c.send("tasks/get", json!({"taskId": "nope"}), with_tasks());
    assert_eq!(unknown["error"]["code"], -32602);
    let bad = c.send("tasks/update", json!({"taskId": task}), with_tasks());
    assert_eq!(bad["error"]["code"], -32602, "{bad}");
    // A 2025-11-25 task is not the extension's, nor the other way round.
    let old = json!({"jsonrpc": "2.0", "id": 99, "method": "tools/call",
        "params": {"name": "must", "arguments": {}, "task": {}}});
    let old = c
        .server
        .handle(&mut c.session, old.to_string().as_bytes())
        .unwrap_or_default();
    let old: Value = serde_json::from_slice(&old).unwrap_or_default();
    let old_task = old["result"]["task"]["taskId"].clone();
    assert!(old_task.is_string(), "{old}");
    let r = c.send("tasks/get", json!({"taskId": old_task}), with_tasks());
    assert_eq!(r["error"]["code"], -32602, "{r}");
}
