//! In-process `tools/call` through the generated code, as a tool author's
//! server runs it: parse the request, validate the arguments against the
//! JSON Schema, deserialize the typed `Input`, call the typed trait method,
//! serialize the typed `Output` and the response. `cargo bench -p toolgen-tests --bench typed_call`
//! (`--features mimalloc` for the servers' allocator).

use std::sync::Arc;

use divan::Bencher;
use serde_json::Map;
use toolgen_generated::editormcp::{self, EditormcpTools};
use toolgen_runtime::{Call, Execution, Server, ServerInfo, Session, ToolError};

/// `--features mimalloc`: the allocator editormcp-server and rave-server
/// use (a call on a worker allocates on one thread and frees on another,
/// where glibc's allocator takes a lock).
#[cfg(feature = "mimalloc")]
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() {
    divan::main();
}

/// `asset.info` answers; every other tool reports that it is not part of the bench.
struct Bench;

macro_rules! bench_method {
    (asset_info => $id:literal) => {
        fn asset_info(
            &self,
            _call: &mut Call,
            input: editormcp::asset_info::Input,
        ) -> Result<editormcp::asset_info::Output, ToolError> {
            Ok(editormcp::asset_info::Output {
                dependencies: input.include_dependencies.then(Vec::new),
                guid: "0123456789abcdef0123456789abcdef".to_owned(),
                import_settings: Map::new(),
                path: input.asset_path,
                size_bytes: 4096,
                type_: "Texture2D".to_owned(),
            })
        }
    };
    ($method:ident => $id:literal) => {
        fn $method(
            &self,
            _: &mut Call,
            _: editormcp::$method::Input,
        ) -> Result<editormcp::$method::Output, ToolError> {
            Err(ToolError::execution("not part of the benchmark"))
        }
    };
}

macro_rules! bench_impl {
    ($($method:ident => $id:literal),* $(,)?) => {
        impl EditormcpTools for Bench {
            $(bench_method!($method => $id);)*
        }
    };
}

toolgen_generated::for_each_editormcp_tool!(bench_impl);

/// The server, its arguments checked by the validator toolgen compiled, or
/// (`compiled: false`) by the `jsonschema` crate as before it did.
fn server(execution: Execution, compiled: bool) -> Server {
    let info = ServerInfo {
        name: "bench".to_owned(),
        version: "0".to_owned(),
        extra: Map::new(),
    };
    let server = Server::new(info, &["core"], "core").execution(execution);
    let mut server = editormcp::register(server, Arc::new(Bench)).unwrap_or_else(|e| panic!("{e}"));
    if !compiled {
        server.compiled_validator("asset.info", None);
    }
    server
}

const ENVELOPE: &[u8] = br#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"tool":"asset.info","arguments":{"assetPath":"Assets/Textures/Logo.png","includeDependencies":true}}}"#;
const MCP: &[u8] = br#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"asset.info","arguments":{"assetPath":"Assets/Textures/Logo.png","includeDependencies":true}}}"#;

fn run(bencher: Bencher, execution: Execution, request: &'static [u8]) {
    run_with(bencher, execution, request, true);
}

fn run_with(bencher: Bencher, execution: Execution, request: &'static [u8], compiled: bool) {
    let s = server(execution, compiled);
    let mut session = Session::default();
    let check = s.handle(&mut session, request).unwrap_or_default();
    assert!(
        String::from_utf8_lossy(&check).contains("Texture2D"),
        "{}",
        String::from_utf8_lossy(&check)
    );
    bencher.bench_local(|| one_call(&s, &mut session, divan::black_box(request)));
}

/// One call, never inlined: `cargo xtask bench-calls` counts the
/// instructions inside it (valgrind `--toggle-collect=*one_call`).
#[inline(never)]
fn one_call(s: &Server, session: &mut Session, request: &[u8]) -> Option<Vec<u8>> {
    s.handle(session, request)
}

#[divan::bench(sample_count = 200, sample_size = 500)]
fn envelope_inline(bencher: Bencher) {
    run(bencher, Execution::Inline, ENVELOPE);
}

#[divan::bench(sample_count = 200, sample_size = 500)]
fn envelope_worker(bencher: Bencher) {
    run(bencher, Execution::Worker, ENVELOPE);
}

#[divan::bench(sample_count = 200, sample_size = 500)]
fn mcp_inline(bencher: Bencher) {
    run(bencher, Execution::Inline, MCP);
}

#[divan::bench(sample_count = 200, sample_size = 500)]
fn mcp_worker(bencher: Bencher) {
    run(bencher, Execution::Worker, MCP);
}

/// The same calls with the `jsonschema` crate deciding, for comparison.
#[divan::bench(sample_count = 200, sample_size = 500)]
fn envelope_crate_validator(bencher: Bencher) {
    run_with(bencher, Execution::Inline, ENVELOPE, false);
}

#[divan::bench(sample_count = 200, sample_size = 500)]
fn mcp_crate_validator(bencher: Bencher) {
    run_with(bencher, Execution::Inline, MCP, false);
}

/// What a hand-off to another thread and back costs on this machine with
/// nothing else done: one thread stores a number, a second, spinning, sees
/// it and answers with the next, the first spinning until it sees that. The
/// floor under `*_worker` minus `*_inline` (a worker call crosses between
/// two threads twice, as this does), whatever the pool does.
#[divan::bench(sample_count = 200, sample_size = 500)]
fn handoff_floor(bencher: Bencher) {
    use std::sync::atomic::{AtomicU64, Ordering};
    let turn = Arc::new(AtomicU64::new(0));
    let stop = u64::MAX;
    let other = {
        let turn = turn.clone();
        std::thread::spawn(move || {
            let mut seen = 0;
            loop {
                let now = turn.load(Ordering::Acquire);
                if now == stop {
                    return;
                }
                if now != seen && now % 2 == 1 {
                    seen = now + 1;
                    turn.store(seen, Ordering::Release);
                }
                std::hint::spin_loop();
            }
        })
    };
    let mut next = 1;
    bencher.bench_local(|| {
        turn.store(next, Ordering::Release);
        while turn.load(Ordering::Acquire) != next + 1 {
            std::hint::spin_loop();
        }
        next += 2;
    });
    turn.store(stop, Ordering::Release);
    let _ = other.join();
}
