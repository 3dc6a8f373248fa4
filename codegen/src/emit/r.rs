//! The R worker of tool sets whose tools are R functions (RAVE tools:
//! `pkg-fn` is `pkg:::fn`; or as a manifest's `r` says), under `r/<set>/`:
//!
//! - `worker.R`, from the template `r/worker.R.jinja`: the script the
//!   runtime's R bridge runs with `Rscript`; it reads newline-delimited
//!   JSON-RPC on stdin, calls the functions and answers on stdout;
//! - `tools.json`, the worker's table: per tool id its package and function,
//!   and the shapes of its input and output, lowered from the schemas, that
//!   tell the worker how to convert JSON to R and back (which arrays are
//!   atomic vectors, which values are scalars to unbox).
//!
//! Tool sets without any R function get nothing. Shapes are data, not code:
//! a spec string reaches the worker only inside JSON that jsonlite parses.

use serde_json::{Map, Value, json};

use super::shape::{Kind, Model, Node, Scalar};
use crate::ir::{Project, Tool};

/// The R worker emitter.
#[derive(Debug, Default)]
pub struct RWorker;

/// How deep shapes go before they say "any" (recursive schemas).
const MAX_DEPTH: usize = 12;

/// The conversion shape of a node: `{"t": "scalar"|"vector"|"list"|"map"|"object"|"any", ...}`.
fn shape(model: &Model, node: &Node, depth: usize) -> Value {
    if depth > MAX_DEPTH {
        return json!({"t": "any"});
    }
    let node = model.resolve(node);
    match &node.kind {
        Kind::Scalar(s) => scalar(*s),
        Kind::Const { of: Some(s), .. } | Kind::Enum { of: Some(s), .. } => scalar(*s),
        Kind::Const { value, .. } => scalar_of(value),
        Kind::Enum { values, .. } => {
            let kinds: Vec<Value> = values.iter().map(scalar_of).collect();
            match kinds.first() {
                Some(k) if kinds.iter().all(|x| x == k) => k.clone(),
                _ => json!({"t": "any"}),
            }
        }
        Kind::Array(items) => {
            // Arrays of scalars are atomic vectors (`null` items as `NA`).
            let item = shape(model, items, depth + 1);
            if item["t"] == "scalar" {
                json!({"t": "vector", "of": item["of"]})
            } else {
                json!({"t": "list", "items": item})
            }
        }
        Kind::Map(values) => json!({"t": "map", "values": shape(model, values, depth + 1)}),
        Kind::Object(props) => {
            let mut out = Map::new();
            for p in props {
                out.insert(p.wire.clone(), shape(model, &p.node, depth + 1));
            }
            json!({"t": "object", "props": out})
        }
        Kind::FreeObject => json!({"t": "object", "props": {}}),
        Kind::Any | Kind::Null | Kind::Union(_) | Kind::AllOf(_) | Kind::Ref(_) | Kind::Root => {
            json!({"t": "any"})
        }
    }
}

fn scalar(s: Scalar) -> Value {
    json!({"t": "scalar", "of": s.as_str()})
}

/// The scalar shape of a literal (`const`, `enum` values).
fn scalar_of(v: &Value) -> Value {
    match v {
        Value::String(_) => scalar(Scalar::String),
        Value::Bool(_) => scalar(Scalar::Boolean),
        Value::Number(n) if n.is_i64() || n.is_u64() => scalar(Scalar::Integer),
        Value::Number(_) => scalar(Scalar::Number),
        _ => json!({"t": "any"}),
    }
}

/// The shape of a tool's input or output schema (`any` when it has none).
fn root_shape(schema: &crate::ir::Schema) -> Value {
    let model = Model::new(schema);
    model
        .root
        .as_ref()
        .map_or_else(|| json!({"t": "any"}), |root| shape(&model, root, 0))
}

/// The worker's table entry of one tool, if an R function implements it.
fn entry(tool: &Tool) -> Option<Value> {
    let f = tool.r_function.as_ref()?;
    Some(json!({
        "package": f.package,
        "function": f.function,
        "input": root_shape(&tool.input),
        "output": root_shape(&tool.output),
    }))
}

impl super::context::TemplateEmitter for RWorker {
    fn emit_rendered(
        &self,
        _cx: &super::context::EmitContext<'_>,
        templates: &crate::templates::RunTemplates,
        project: &Project,
        out: &mut super::context::Output<'_>,
    ) {
        for set in &project.tool_sets {
            let tools: Map<String, Value> = set
                .tools
                .iter()
                .filter_map(|t| Some((t.id.value.clone(), entry(t)?)))
                .collect();
            if tools.is_empty() {
                continue;
            }
            let table = json!({"toolset": set.name, "tools": tools});
            out.files
                .add_json(format!("r/{}/tools.json", set.name), &table);
            out.render(
                templates.for_set(set),
                "r/worker.R.jinja",
                format!("r/{}/worker.R", set.name),
                &json!({"set": {"name": set.name}}),
            );
        }
    }
}
