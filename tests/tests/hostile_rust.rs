//! The Rust generated from `tests/fixtures/rust-hostile` (names that collide
//! once they are identifiers: `a-b`/`a_b`/`A_B`, `id`/`Id`, `Spot`/`spot`,
//! keywords, tool ids `collide.names`/`collide-names`, `defs`, `type`), and
//! schema keywords typify cannot type (`keywords`: `not`, `if`/`then`/`else`,
//! `patternProperties`, enums of mixed types), checked in under
//! `tests/generated-hostile/` by `cargo xtask gen`, compiles here and keeps
//! every wire name apart through a real call.

#[path = "../generated-hostile/rust/src/lib.rs"]
#[allow(unused_imports, unused_qualifications, unreachable_pub)]
mod generated;

use std::sync::Arc;

use generated::hostile::{self, HostileTools};
use serde_json::{Map, Value, json};
use toolgen_runtime::{Call, Execution, Server, ServerInfo, Session, ToolError};

/// Echoes every input field into the output, so that a mix-up shows.
struct Echo;

impl HostileTools for Echo {
    fn collide_names(
        &self,
        _: &mut Call,
        input: hostile::collide_names::Input,
    ) -> Result<hostile::collide_names::Output, ToolError> {
        Ok(hostile::collide_names::Output { echo: input.shared })
    }

    /// The tool module is `defs`, so the shared definitions live in `defs_`; its
    /// definitions `Input` and `Output` push the root types to `ToolInput`/`ToolOutput`.
    fn defs(
        &self,
        call: &mut Call,
        input: hostile::defs::Input,
    ) -> Result<hostile::defs::Output, ToolError> {
        let hostile::defs_::Shared { id, id_2 } = input.shared;
        let summary = format!(
            "{id_2}/{id:?}/{:?}/{:?}/{:?}/{:?}",
            input.input.and_then(|i| i.value),
            input.self_,
            input.super_,
            input.crate_
        );
        call.diagnostic(summary);
        // `maybe` is null or an object: the object is its own type,
        // `MaybeInner`; optional and nullable, it is absent, null or a value.
        let note = Some("n".to_owned());
        Ok(hostile::defs::Output {
            output: Some(hostile::defs::output::Output("OK!".to_owned())),
            maybe: toolgen_runtime::Nullable::Value(hostile::defs::output::Maybe(Some(
                hostile::defs::output::MaybeInner { note },
            ))),
        })
    }

    /// Keywords typify cannot type become looser types; the runtime has
    /// validated them already. An object default is the type's `Default`.
    fn keywords(
        &self,
        _: &mut Call,
        input: hostile::keywords::Input,
    ) -> Result<hostile::keywords::Output, ToolError> {
        let opts = input.opts.unwrap_or_default();
        Ok(hostile::keywords::Output {
            cond: input.cond,
            either: input.either,
            if_: input.if_,
            labels: input.labels,
            not: input.not,
            not_text: input.not_text,
            opts: Some(hostile::keywords::output::OutputOpts {
                format: opts.format,
                pattern: opts.pattern,
            }),
        })
    }

    /// A keyword as a tool id; no output schema, so the output is any JSON value.
    fn type_(
        &self,
        _: &mut Call,
        _: hostile::type_::Input,
    ) -> Result<hostile::type_::Output, ToolError> {
        Ok(json!({"keyword": "type"}))
    }

    fn odd_refs(
        &self,
        _: &mut Call,
        input: hostile::odd_refs::Input,
    ) -> Result<hostile::odd_refs::Output, ToolError> {
        serde_json::to_value(input).map_err(|e| ToolError::execution(e.to_string()))
    }

    fn inline_names(
        &self,
        _: &mut Call,
        input: hostile::inline_names::Input,
    ) -> Result<hostile::inline_names::Output, ToolError> {
        // The same shapes on both sides: what comes in goes out, typed.
        serde_json::to_value(input)
            .and_then(serde_json::from_value)
            .map_err(|e| ToolError::execution(e.to_string()))
    }

    fn collide_names_2(
        &self,
        call: &mut Call,
        input: hostile::collide_names_2::Input,
    ) -> Result<hostile::collide_names_2::Output, ToolError> {
        call.diagnostic(format!(
            "type={:?} self={:?} Self={:?} 1st={:?} x.y={:?} mode={:?} spot={:?} spotLower={:?}",
            input.type_,
            // Fields follow the properties' sorted order: `Self` comes first.
            input.self_2,
            input.self_,
            input.x1st,
            input.x_y,
            input.mode,
            input.spot.map(|s| s.x),
            input.spot_lower.map(|s| s.label),
        ));
        Ok(hostile::collide_names_2::Output {
            a_b: input.a_b,
            a_b_3: input.a_b_3,
            a_b_4: input.a_b_4,
            a_b_2: input.a_b_2,
            shared: input.shared,
        })
    }
}

fn server() -> Server {
    let info = ServerInfo {
        name: "hostile".to_owned(),
        version: "0".to_owned(),
        extra: Map::new(),
    };
    let server = Server::new(info, &["core"], "core").execution(Execution::Inline);
    hostile::register(server, Arc::new(Echo)).unwrap_or_else(|e| panic!("{e}"))
}

fn call(server: &Server, name: &str, arguments: Value) -> Value {
    let request = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"tool": name, "arguments": arguments}});
    let line = server
        .handle(&mut Session::default(), request.to_string().as_bytes())
        .unwrap_or_default();
    serde_json::from_slice(&line).unwrap_or_else(|e| panic!("{e}: {line:?}"))
}

#[test]
fn colliding_wire_names_stay_apart_through_a_call() {
    let s = server();
    let response = call(
        &s,
        "collide.names",
        json!({
            "a-b": "dash!", "a_b": "underscore!", "A_B": true, "a_b_2": 7,
            "type": "t", "self": "s", "Self": "S", "1st": "first", "x.y": "dot", "mode": "A",
            "spot": {"x": 1.5}, "spotLower": {"label": "low"},
            "shared": {"id": 3, "Id": "three"}
        }),
    );
    assert_eq!(
        response["result"]["output"],
        json!({"A_B": true, "a-b": "dash!", "a_b": "underscore!", "a_b_2": 7, "shared": {"Id": "three", "id": 3}}),
        "{response}"
    );
    assert_eq!(
        response["result"]["diagnostics"][0],
        "type=Some(\"t\") self=Some(\"s\") Self=Some(\"S\") 1st=Some(\"first\") x.y=Some(\"dot\") mode=Some(\"A\") spot=Some(1.5) spotLower=Some(\"low\")"
    );
}

#[test]
fn defaults_of_colliding_properties_stay_apart() {
    let s = server();
    let response = call(&s, "collide.names", json!({"a_b_2": 1}));
    assert_eq!(
        response["result"]["output"],
        json!({"a-b": "dash", "a_b": "underscore", "a_b_2": 1}),
        "{response}"
    );
}

#[test]
fn tools_whose_ids_make_one_module_name_are_both_served() {
    let s = server();
    let response = call(&s, "collide-names", json!({"shared": {"id": 1}}));
    assert_eq!(
        response["result"]["output"],
        json!({"echo": {"id": 1}}),
        "{response}"
    );
    let ids: Vec<&str> = hostile::TOOLS.iter().map(|t| t.id).collect();
    assert_eq!(
        ids,
        [
            "collide-names",
            "collide.names",
            "defs",
            "inline.names",
            "keywords",
            "odd.refs",
            "type"
        ]
    );
    let response = call(&s, "type", json!({}));
    assert_eq!(
        response["result"]["output"],
        json!({"keyword": "type"}),
        "{response}"
    );
}

#[test]
fn a_tool_named_like_the_shared_module_and_definitions_named_like_roots() {
    let s = server();
    let response = call(
        &s,
        "defs",
        json!({"shared": {"id": 4, "Id": "four"}, "input": {"value": "v"}, "Self": "me", "super": 2, "crate": true}),
    );
    // `Output`, an enum whose values collide as variants, is typed as a string.
    assert_eq!(
        response["result"]["output"],
        json!({"maybe": {"note": "n"}, "output": "OK!"}),
        "{response}"
    );
    assert_eq!(
        response["result"]["diagnostics"][0],
        "4/Some(\"four\")/Some(\"v\")/Some(\"me\")/Some(2)/Some(true)"
    );
}

#[test]
fn keywords_typify_cannot_type_are_looser_types_and_keyword_like_data_stays() {
    let s = server();
    let arguments = json!({
        "if": "then", "not": 3, "labels": {"x-a": "1", "x-b": "2"}, "either": 1,
        "cond": 7, "notText": 2
    });
    let response = call(&s, "keywords", arguments.clone());
    // Every value comes back, and the object default keeps its `format` and
    // `pattern` keys (data, not schema keywords).
    let mut expected = arguments;
    expected["opts"] = json!({"format": "csv", "pattern": "*.txt"});
    assert_eq!(response["result"]["output"], expected, "{response}");

    // A constraint without a declared type constrains nothing else: 7 passes
    // validation and fits the type.
    let response = call(&s, "keywords", json!({"loose": 7}));
    assert!(response.get("error").is_none(), "{response}");

    // An empty map stays a present, empty map.
    let response = call(&s, "keywords", json!({"labels": {}}));
    assert_eq!(
        response["result"]["output"]["labels"],
        json!({}),
        "{response}"
    );

    // The runtime validates what the types no longer say.
    for bad in [
        json!({"labels": {"y": "1"}}),
        json!({"either": "b"}),
        json!({"cond": ""}),
        json!({"notText": "text"}),
    ] {
        let response = call(&s, "keywords", bad.clone());
        assert_eq!(response["error"]["code"], -32002, "{bad}: {response}");
    }
}

/// Inline objects typify would give one name (`x-y`, `x_y`) or a definition's
/// name (`thing`) get types of their own: every field arrives and comes back.
#[test]
fn inline_types_named_alike_keep_their_own_fields() {
    let s = server();
    let args = json!({"x-y": {"a": "A"}, "x_y": {"b": 2}, "thing": {"c": true}, "count": 7});
    let response = call(&s, "inline.names", args.clone());
    assert_eq!(response["result"]["output"], args, "{response}");
    let bad = call(&s, "inline.names", json!({"x_y": {"a": "A"}}));
    assert_eq!(bad["error"]["code"], -32002, "{bad}");
}

/// References to places that are not definitions, definitions typify names
/// alike, and `contains` without `items` all type, and values pass through.
#[test]
fn schemas_typify_cannot_take_as_written_still_type() {
    let s = server();
    let args = json!({"a": {"n": 1}, "b": 2, "dash": {"z": "z"}, "x": {"y": 3}, "tags": ["t", 4]});
    let response = call(&s, "odd.refs", args.clone());
    assert_eq!(response["result"]["output"], args, "{response}");
    let bad = call(&s, "odd.refs", json!({"b": "two"}));
    assert_eq!(bad["error"]["code"], -32002, "{bad}");
    let missing = call(&s, "odd.refs", json!({"tags": [1]}));
    assert_eq!(
        missing["error"]["code"], -32002,
        "`contains` is still validated: {missing}"
    );
}
