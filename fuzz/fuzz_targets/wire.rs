//! The wire, as stdio and HTTP hand it to the server: any bytes as one
//! request (every line of the input in turn, on one session, so that
//! `initialize` and cursors carry over). Every answer must be one line of
//! JSON; nothing may panic or hang.
#![no_main]

use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use toolgen_runtime::{Server, Session};

fn server() -> &'static Server {
    static SERVER: OnceLock<Server> = OnceLock::new();
    SERVER.get_or_init(toolgen_fuzz::server)
}

fuzz_target!(|data: &[u8]| {
    let server = server();
    let mut session = Session::default();
    for line in data.split(|b| *b == b'\n') {
        if let Some(out) = server.handle(&mut session, line) {
            assert!(out.ends_with(b"\n"), "an answer is one line");
            let body = &out[..out.len() - 1];
            assert!(!body.contains(&b'\n'), "an answer is one line");
            if let Err(e) = serde_json::from_slice::<serde_json::Value>(body) {
                panic!(
                    "an answer that is not JSON ({e}): {}",
                    String::from_utf8_lossy(body)
                );
            }
        }
    }
});
