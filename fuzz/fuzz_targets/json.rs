//! The runtime's own JSON reading against serde_json's: any text reads as
//! the same value as serde_json's `Value` (or both refuse it), and a
//! `tools/call` carrying it as arguments (to an untyped and to a typed tool,
//! in both dialects) is answered byte for byte as the general path answers it.
#![no_main]

use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use serde_json::Value;
use toolgen_runtime::json::Json;
use toolgen_runtime::{Server, Session};

fn server() -> &'static Server {
    static SERVER: OnceLock<Server> = OnceLock::new();
    SERVER.get_or_init(toolgen_fuzz::server)
}

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let ours = Json::parse(text).map(|p| p.json.to_value());
    let theirs = serde_json::from_str::<Value>(text);
    match (&ours, &theirs) {
        (Ok(a), Ok(b)) => assert_eq!(a, b, "{text:?} reads differently"),
        (Err(_), Err(_)) => {}
        _ => panic!("{text:?}: ours {ours:?}, serde_json's {theirs:?}"),
    }
    if text.contains('\n') {
        return; // one request is one line
    }
    let server = server();
    for (key, tool) in [("name", "typed"), ("tool", "typed"), ("name", "echo")] {
        let request = format!(
            r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{{"{key}":"{tool}","arguments":{text}}}}}"#
        );
        let fast = server.handle(&mut Session::default(), request.as_bytes());
        let general = server.handle_general(&mut Session::default(), request.as_bytes());
        assert_eq!(
            fast.as_deref().map(String::from_utf8_lossy),
            general.as_deref().map(String::from_utf8_lossy),
            "{request}"
        );
    }
});
