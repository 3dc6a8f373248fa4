//! The comparison server for `cargo xtask bench-server`: `project.info`
//! written as rmcp's own users write a tool (`#[tool]`, `Json<T>` structured
//! output, a schemars type), serving what editormcp-server's demo answers,
//! over stdio, or over Streamable HTTP with `--http ADDR` (stateless, JSON
//! responses), on a runtime of one thread as `--rmcp` serves. Not toolgen:
//! the measure of rmcp itself.

use hyper_util::rt::TokioIo;
use hyper_util::service::TowerToHyperService;
use rmcp::handler::server::wrapper::Json;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use rmcp::{ServiceExt, tool, tool_router};

/// High-level project information.
#[derive(serde::Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
struct ProjectInfo {
    project_name: String,
    unity_version: String,
    render_pipeline: String,
    build_targets: Vec<String>,
    project_path: String,
}

#[derive(Clone)]
struct Native;

#[tool_router(server_handler)]
impl Native {
    #[tool(
        name = "project.info",
        description = "Returns high-level project information."
    )]
    fn project_info(&self) -> Json<ProjectInfo> {
        Json(ProjectInfo {
            project_name: "SpaceShooter".into(),
            unity_version: "2022.3.20f1".into(),
            render_pipeline: "URP".into(),
            build_targets: ["Android", "StandaloneOSX", "StandaloneWindows64"]
                .map(String::from)
                .into(),
            project_path: "/projects/SpaceShooter".into(),
        })
    }
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    runtime.block_on(async {
        let args: Vec<String> = std::env::args().collect();
        let http = args.iter().position(|a| a == "--http");
        let Some(address) = http.and_then(|i| args.get(i + 1)) else {
            let running = Native.serve(rmcp::transport::stdio()).await?;
            running.waiting().await?;
            return Ok(());
        };
        let config = StreamableHttpServerConfig::default()
            .with_legacy_session_mode(false)
            .with_json_response(true);
        let service = StreamableHttpService::new(
            || Ok(Native),
            LocalSessionManager::default().into(),
            config,
        );
        let listener = tokio::net::TcpListener::bind(address).await?;
        loop {
            let (stream, _) = listener.accept().await?;
            let service = TowerToHyperService::new(service.clone());
            tokio::spawn(async move {
                let connection = hyper::server::conn::http1::Builder::new()
                    .serve_connection(TokioIo::new(stream), service);
                let _ = connection.await;
            });
        }
    })
}
