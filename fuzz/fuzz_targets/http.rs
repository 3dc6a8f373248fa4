//! The HTTP transport: any bytes as what a client sends on one connection
//! (request lines, headers, bodies, several requests, truncated ones), to
//! the server with a token, a small body limit and sessions. The server
//! must answer with HTTP, never panic or hang.
#![no_main]

use std::sync::{Arc, OnceLock};

use libfuzzer_sys::fuzz_target;
use toolgen_runtime::server::http::{Auth, FuzzHarness, HttpOptions};

fn harness() -> &'static FuzzHarness {
    static HARNESS: OnceLock<FuzzHarness> = OnceLock::new();
    HARNESS.get_or_init(|| {
        let options = HttpOptions {
            auth: Some(Auth::token("fuzz-token-0123456789abcdef")),
            ..HttpOptions::default()
        };
        let server = Arc::new(toolgen_fuzz::server().max_request_bytes(4096));
        FuzzHarness::new(server, options).unwrap_or_else(|e| panic!("{e}"))
    })
}

fuzz_target!(|data: &[u8]| {
    let out = harness().exchange(data);
    if !out.is_empty() {
        assert!(
            out.starts_with(b"HTTP/1."),
            "{}",
            String::from_utf8_lossy(&out)
        );
    }
});
