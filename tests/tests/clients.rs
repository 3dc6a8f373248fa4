//! Clients' variants of the catalog (`clients:`), over every tool of the
//! repository's tool sets and of the real-world-shaped fixtures, for every
//! client profile:
//! - the variant is what its client takes: the client's own rules find none
//!   of the things a variant changes (names, keywords, formats, references,
//!   strict mode) in it;
//! - arguments drawn for the variant's schema (the ones its validator
//!   accepts), sent through a server serving the variant, reach the tool
//!   valid for the spec's own schema but for the constraints the variant
//!   left to the server (keywords its client refuses): the server maps
//!   them back.

use std::path::PathBuf;
use std::sync::Arc;

use serde_json::{Value, json};
use toolgen::testing::clients::{PROFILES, Profile, findings, variant_entry};
use toolgen_runtime::{Handler, Server, ServerInfo, Session, ToolDescriptor, ToolOutput};
use toolgen_tests::instances::instance;
use toolgen_tests::root;
use toolgen_tests::synth::Rng;

/// What a variant changes, so must not find in one (TG1001 names, TG1002
/// name lengths, TG1007 keywords, TG1011 formats, TG1012/TG1013 strict mode,
/// TG1014 references, TG1016 keywords beside references).
const CHANGED: &[&str] = &[
    "TG1001", "TG1002", "TG1007", "TG1011", "TG1012", "TG1013", "TG1014", "TG1016",
];

/// Every tool's catalog entry, with its tool set's name, of the tool sets
/// this repository ships and the real-world-shaped fixtures.
fn entries() -> Vec<(String, Value)> {
    let dirs: Vec<PathBuf> = ["editormcp", "rave", "toolvault", "conformance"]
        .iter()
        .map(|d| root().join("tool-specs").join(d))
        .chain([root().join("tests/fixtures/mcp-realworld")])
        .collect();
    let mut out = Vec::new();
    for dir in dirs {
        let loaded = toolgen::load::load(
            std::slice::from_ref(&dir),
            &toolgen::load::LoadOptions::default(),
        );
        assert!(!loaded.diagnostics.has_errors(), "{} loads", dir.display());
        for set in &loaded.project.tool_sets {
            for tool in &set.tools {
                let entry = toolgen::catalog_entry(set, tool);
                let entry: Value = serde_json::from_str(&entry).unwrap_or_default();
                out.push((set.name.clone(), entry));
            }
        }
    }
    assert!(out.len() > 40, "{} tools", out.len());
    out
}

#[test]
fn every_variant_is_what_its_client_takes() {
    let mut checked = 0;
    for (set, entry) in entries() {
        for p in &PROFILES {
            let Ok(v) = variant_entry(&entry, &set, p) else {
                // A recursive schema for a client that does not resolve
                // references: refused, as TG1015 says.
                assert!(p.inline_refs, "{}: {}", entry["name"], p.title);
                continue;
            };
            let name = v["name"].as_str().unwrap_or_default();
            let full = format!("{}{name}", (p.prefix)(&set));
            assert!(
                name.chars()
                    .enumerate()
                    .all(|(i, c)| (p.name_char)(c, i == 0)),
                "{}: {name}",
                p.title
            );
            assert!(
                full.chars().count() <= p.max_name.max(name.chars().count().min(12)),
                "{}: {full}",
                p.title
            );
            let left: Vec<String> = findings(&v["inputSchema"], p)
                .into_iter()
                .filter(|(rule, _)| CHANGED.contains(&rule.code))
                .map(|(rule, message)| format!("{} {message}", rule.code))
                .collect();
            assert!(
                left.is_empty(),
                "{}'s variant of {}: {left:?}\n{}",
                p.title,
                entry["name"],
                v["inputSchema"]
            );
            checked += 1;
        }
    }
    eprintln!("{checked} variants checked");
    assert!(checked > 300, "{checked} variants checked");
}

/// A server with the tool of `entry` (taking any object and answering with
/// the arguments it received) and `variant` listed to every client.
fn echoing(entry: &Value, variant: &Value, p: &Profile) -> Server {
    let name = entry["name"].as_str().unwrap_or_default();
    let descriptor = ToolDescriptor {
        id: name.to_owned(),
        name: name.to_owned(),
        description: String::new(),
        category: "test".to_owned(),
        safety_level: "read-only".to_owned(),
        tier: "core".to_owned(),
        input_schema: json!({"type": "object"}),
        output_schema: None,
        timeout: None,
        requires_approval: false,
        notes: None,
        entry: None,
    };
    let echo: Handler = Arc::new(|_, args| Ok(ToolOutput::new(Value::Object(args))));
    let catalog = json!({"client": p.client.as_str(), "tools": [variant]}).to_string();
    Server::new(ServerInfo::new("t", "0"), &["core"], "core")
        .tool(descriptor, echo)
        .and_then(|s| s.client_variant(&catalog))
        .and_then(|s| s.serve_client(p.client.as_str()))
        .unwrap_or_else(|e| panic!("{name}: {e}"))
}

/// `schema` without what a variant leaves to the server: the keywords its
/// client refuses (but references, which it inlines).
fn relaxed(schema: &Value, p: &Profile) -> Value {
    match schema {
        Value::Object(m) => Value::Object(
            m.iter()
                .filter(|(k, _)| p.keywords.takes(k) || k.starts_with('$'))
                .map(|(k, v)| (k.clone(), relaxed(v, p)))
                .collect(),
        ),
        Value::Array(items) => Value::Array(items.iter().map(|v| relaxed(v, p)).collect()),
        other => other.clone(),
    }
}

#[test]
fn arguments_for_a_variant_map_back_to_the_tools_own() {
    let mut rng = Rng(0x5eed_c11e);
    let mut sent = 0;
    let mut nulls = 0;
    for (set, entry) in entries() {
        for p in &PROFILES {
            let Ok(original) = jsonschema::validator_for(&relaxed(&entry["inputSchema"], p)) else {
                continue;
            };
            let Ok(v) = variant_entry(&entry, &set, p) else {
                continue;
            };
            let schema = &v["inputSchema"];
            let Ok(valid) = jsonschema::validator_for(schema) else {
                continue;
            };
            let server = echoing(&entry, &v, p);
            let mut session = Session::default();
            let init = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
                "protocolVersion": "2025-11-25", "capabilities": {},
                "clientInfo": {"name": "test", "version": "0"}}});
            server.handle(&mut session, init.to_string().as_bytes());
            for _ in 0..12 {
                let Some(args) = instance(&mut rng, schema, schema, 0) else {
                    continue;
                };
                if !valid.is_valid(&args) {
                    continue;
                }
                nulls += usize::from(args.to_string().contains("null"));
                let call = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                    "params": {"name": v["name"], "arguments": args}});
                let answer = server
                    .handle(&mut session, call.to_string().as_bytes())
                    .unwrap_or_default();
                let answer: Value = serde_json::from_slice(&answer).unwrap_or_default();
                let mapped = &answer["result"]["structuredContent"];
                // Valid for the spec's schema, but for what the variant left to the server.
                let wrong: Vec<String> = original
                    .iter_errors(mapped)
                    .map(|e| format!("{} at {}", e, e.instance_path().as_str()))
                    .collect();
                assert!(
                    wrong.is_empty(),
                    "{}'s variant of {}: {args} is valid for it, and maps back to {mapped}: {wrong:?}",
                    p.title,
                    entry["name"]
                );
                sent += 1;
            }
        }
    }
    eprintln!("{sent} calls, {nulls} with a null");
    assert!(sent > 1000, "{sent} calls");
    assert!(nulls > 50, "{nulls} calls with a null to map back");
}
