//! An in-memory Unity project, loaded from `fixtures/demo-project.json`, that
//! the 18 EditorMCP core tools read (and `go.setParent` changes). Every output
//! follows the tool's output schema and is deterministically ordered.

use std::sync::Mutex;

use serde_json::{Map, Value, json};
use toolgen_runtime::{Content, ToolError};

pub struct Demo {
    project: Mutex<Value>,
    /// The catalog's EditorMCP form of each tool, for `mcp.tools.list` / `mcp.tool.describe`.
    pub catalog: Vec<Value>,
}

type Args = Map<String, Value>;

fn s<'a>(a: &'a Args, k: &str) -> Option<&'a str> {
    a.get(k).and_then(Value::as_str)
}

/// A demo tool's answer: its output, informational diagnostics, content
/// blocks and log messages (level info). (Not a `ToolOutput`, which holds
/// JSON text: the server turns the output into the typed `Output` next,
/// straight from the value.)
pub struct Answer {
    pub output: Value,
    pub diagnostics: Vec<String>,
    pub content: Vec<Content>,
    pub logs: Vec<String>,
}

fn out(output: Value) -> Result<Answer, ToolError> {
    Ok(Answer {
        output,
        diagnostics: Vec::new(),
        content: Vec::new(),
        logs: Vec::new(),
    })
}

/// The preview the demo shows of every texture: a PNG of one grey pixel.
const PREVIEW_PNG: &[u8] = &[
    0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x48, 0x44, 0x52,
    0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x01, 0x08, 0x00, 0x00, 0x00, 0x00, 0x3a, 0x7e, 0x9b,
    0x55, 0x00, 0x00, 0x00, 0x0a, 0x49, 0x44, 0x41, 0x54, 0x78, 0xda, 0x63, 0x68, 0x00, 0x00, 0x00,
    0x82, 0x00, 0x81, 0xda, 0x45, 0x08, 0x3b, 0x00, 0x00, 0x00, 0x00, 0x49, 0x45, 0x4e, 0x44, 0xae,
    0x42, 0x60, 0x82,
];

fn unity(message: &str) -> ToolError {
    ToolError::unity(message)
}

/// `*` matches any run of characters, `?` one character.
pub fn wildcard(pattern: &str, text: &str) -> bool {
    let (p, t): (Vec<char>, Vec<char>) = (pattern.chars().collect(), text.chars().collect());
    let (mut pi, mut ti, mut star, mut mark) = (0, 0, None, 0);
    while ti < t.len() {
        if pi < p.len() && (p[pi] == '?' || p[pi] == t[ti]) {
            pi += 1;
            ti += 1;
        } else if pi < p.len() && p[pi] == '*' {
            star = Some(pi);
            mark = ti;
            pi += 1;
        } else if let Some(sp) = star {
            pi = sp + 1;
            mark += 1;
            ti = mark;
        } else {
            return false;
        }
    }
    p[pi..].iter().all(|c| *c == '*')
}

/// Hierarchy path patterns: `*` is one level (with wildcards inside), `**` any number.
pub fn path_matches(pattern: &[&str], path: &[&str]) -> bool {
    match (pattern.first(), path.first()) {
        (None, None) => true,
        (Some(&"**"), _) => {
            path_matches(&pattern[1..], path)
                || (!path.is_empty() && path_matches(pattern, &path[1..]))
        }
        (Some(p), Some(seg)) => wildcard(p, seg) && path_matches(&pattern[1..], &path[1..]),
        _ => false,
    }
}

/// Every GameObject below `nodes`, with its hierarchy path, in depth-first sibling order.
fn walk<'a>(nodes: &'a [Value], prefix: &str, out: &mut Vec<(String, &'a Value)>) {
    for n in nodes {
        let name = n["name"].as_str().unwrap_or("");
        let path = if prefix.is_empty() {
            name.to_owned()
        } else {
            format!("{prefix}/{name}")
        };
        out.push((path.clone(), n));
        walk(
            n["children"].as_array().map_or(&[][..], Vec::as_slice),
            &path,
            out,
        );
    }
}

fn component_types(n: &Value) -> Vec<Value> {
    n["components"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|c| c["type"].clone())
        .collect()
}

fn short_type(t: &Value) -> Value {
    json!(t.as_str().unwrap_or("").rsplit('.').next().unwrap_or(""))
}

fn node_dump(n: &Value, path: &str) -> Value {
    let children: Vec<Value> = n["children"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|c| node_dump(c, &format!("{path}/{}", c["name"].as_str().unwrap_or(""))))
        .collect();
    json!({"name": n["name"], "path": path, "instanceId": n["instanceId"], "components": component_types(n).iter().map(short_type).collect::<Vec<_>>(), "children": children})
}

impl Demo {
    pub fn new(project: Value, catalog: Vec<Value>) -> Demo {
        Demo {
            project: Mutex::new(project),
            catalog,
        }
    }

    fn with<T>(&self, f: impl FnOnce(&mut Value) -> T) -> T {
        let mut p = self.project.lock().unwrap_or_else(|e| e.into_inner());
        f(&mut p)
    }

    fn scene<'p>(p: &'p Value, path: &str) -> Result<&'p Value, ToolError> {
        p["scenes"]
            .as_array()
            .into_iter()
            .flatten()
            .find(|sc| sc["path"] == path)
            .ok_or_else(|| {
                unity("Unity Editor error: Scene file not found")
                    .detail("scenePath", path)
                    .detail("unityError", format!("Scene file '{path}' does not exist"))
            })
    }

    fn active(p: &Value) -> Result<(String, &Value), ToolError> {
        let path = p["activeScene"].as_str().unwrap_or("").to_owned();
        if path.is_empty() {
            return Err(unity("No active scene loaded"));
        }
        let scene = Demo::scene(p, &path)?;
        Ok((path, scene))
    }

    pub fn call(&self, tool: &str, a: &Args) -> Result<Answer, ToolError> {
        match tool {
            "mcp.server.info" => self.with(|p| {
                let mut cats: Vec<&str> = self.catalog.iter().filter_map(|t| t["category"].as_str()).collect();
                cats.sort_unstable();
                cats.dedup();
                out(json!({"serverVersion": env!("CARGO_PKG_VERSION"), "unityVersion": p["unityVersion"], "platform": p["platform"], "enabledToolCategories": cats, "tier": "core"}))
            }),
            "mcp.tools.list" => {
                let tools: Vec<Value> = self
                    .catalog
                    .iter()
                    .filter(|t| s(a, "category").is_none_or(|c| t["category"] == c))
                    .filter(|t| s(a, "tier").is_none_or(|c| t["tier"] == c))
                    .map(|t| json!({"id": t["id"], "name": t["name"], "description": t["description"], "category": t["category"], "safetyLevel": t["safetyLevel"], "tier": t["tier"]}))
                    .collect();
                out(json!({"tools": tools}))
            }
            "mcp.tool.describe" => {
                let id = s(a, "toolId").unwrap_or("");
                let t = self.catalog.iter().find(|t| t["id"] == id).ok_or_else(|| {
                    ToolError::new(toolgen_runtime::ErrorCode::ToolNotFound, format!("Tool not found: {id}")).detail("toolId", id)
                })?;
                out(t.clone())
            }
            "project.info" => self.with(|p| {
                let mut targets: Vec<Value> = p["buildTargets"].as_array().cloned().unwrap_or_default();
                targets.sort_by(|x, y| x.as_str().cmp(&y.as_str()));
                out(json!({"projectName": p["projectName"], "unityVersion": p["unityVersion"], "renderPipeline": p["renderPipeline"], "buildTargets": targets, "projectPath": p["projectPath"]}))
            }),
            "project.scenes.list" => self.with(|p| {
                let filter = a.get("includeInBuild").and_then(Value::as_bool);
                let mut scenes: Vec<Value> = p["scenes"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .filter(|sc| filter.is_none_or(|f| sc["enabledInBuild"] == f))
                    .map(|sc| {
                        let path = sc["path"].as_str().unwrap_or("");
                        let name = path.rsplit('/').next().unwrap_or("").trim_end_matches(".unity");
                        json!({"path": path, "name": name, "enabledInBuild": sc["enabledInBuild"], "buildIndex": sc["buildIndex"]})
                    })
                    .collect();
                scenes.sort_by(|x, y| x["path"].as_str().cmp(&y["path"].as_str()));
                out(json!({"scenes": scenes}))
            }),
            "project.assets.summary" => self.with(|p| {
                let min = a.get("minSizeBytes").and_then(Value::as_u64).unwrap_or(1_048_576);
                let assets: Vec<&Value> = p["assets"].as_array().into_iter().flatten().filter(|x| s(a, "assetType").is_none_or(|t| x["type"] == t)).collect();
                let mut by_type = Map::new();
                for x in &assets {
                    let t = x["type"].as_str().unwrap_or("").to_owned();
                    let n = by_type.get(&t).and_then(Value::as_u64).unwrap_or(0);
                    by_type.insert(t, json!(n + 1));
                }
                let mut large: Vec<Value> = assets
                    .iter()
                    .filter(|x| x["sizeBytes"].as_u64().unwrap_or(0) >= min)
                    .map(|x| json!({"path": x["path"], "type": x["type"], "sizeBytes": x["sizeBytes"]}))
                    .collect();
                large.sort_by(|x, y| y["sizeBytes"].as_u64().cmp(&x["sizeBytes"].as_u64()).then(x["path"].as_str().cmp(&y["path"].as_str())));
                let unreferenced = assets.iter().filter(|x| x["referenced"] == false).count();
                let mut a = out(json!({"totalAssets": assets.len(), "byType": by_type, "largeAssets": large, "unreferencedCount": unreferenced}))?;
                a.diagnostics.push("Timeline assets counted as 0: the Timeline package is not installed in the demo project.".to_owned());
                Ok(a)
            }),
            "project.references.missing" => self.with(|p| {
                let scope = s(a, "scope").unwrap_or("all");
                let keep = |path: &Value| {
                    let path = path.as_str().unwrap_or("");
                    match scope {
                        "scenes" => path.ends_with(".unity"),
                        "prefabs" => path.ends_with(".prefab"),
                        "assets" => !path.ends_with(".unity") && !path.ends_with(".prefab"),
                        _ => true,
                    }
                };
                let mut scripts: Vec<Value> = p["missingScripts"].as_array().into_iter().flatten().filter(|m| keep(&m["path"])).cloned().collect();
                scripts.sort_by(|x, y| x["path"].as_str().cmp(&y["path"].as_str()).then(x["componentIndex"].as_u64().cmp(&y["componentIndex"].as_u64())));
                let mut broken: Vec<Value> = p["brokenReferences"].as_array().into_iter().flatten().filter(|m| keep(&m["path"])).cloned().collect();
                broken.sort_by(|x, y| x["path"].as_str().cmp(&y["path"].as_str()).then(x["referencePath"].as_str().cmp(&y["referencePath"].as_str())));
                out(json!({"missingScripts": scripts, "brokenReferences": broken}))
            }),
            "scene.hierarchy.dump" => self.with(|p| {
                let path = s(a, "scenePath").unwrap_or("");
                let scene = Demo::scene(p, path)?;
                let roots: Vec<Value> = scene["roots"].as_array().into_iter().flatten().map(|n| node_dump(n, n["name"].as_str().unwrap_or(""))).collect();
                out(json!({"scenePath": path, "rootObjects": roots}))
            }),
            "scene.objects.find" | "go.find" => self.with(|p| {
                let (scene_path, scene) = if tool == "go.find" { Demo::active(p)? } else {
                    let path = s(a, "scenePath").unwrap_or("").to_owned();
                    let sc = Demo::scene(p, &path)?;
                    (path, sc)
                };
                let pattern: Option<Vec<&str>> = s(a, "hierarchyPath").map(|h| h.split('/').collect());
                if pattern.as_ref().is_some_and(|pt| pt.iter().any(|seg| seg.is_empty())) {
                    return Err(unity("Invalid hierarchy path pattern").detail("hierarchyPath", s(a, "hierarchyPath").unwrap_or("")));
                }
                let mut all = Vec::new();
                walk(scene["roots"].as_array().map_or(&[][..], Vec::as_slice), "", &mut all);
                let mut matches: Vec<Value> = all
                    .into_iter()
                    .filter(|(path, n)| {
                        let segs: Vec<&str> = path.split('/').collect();
                        pattern.as_ref().is_none_or(|pt| path_matches(pt, &segs))
                            && s(a, "componentType").is_none_or(|c| component_types(n).iter().any(|t| t == c || short_type(t) == c))
                            && s(a, "namePattern").is_none_or(|np| wildcard(np, n["name"].as_str().unwrap_or("")))
                            && s(a, "tag").is_none_or(|t| n["tag"] == t)
                            && a.get("layer").is_none_or(|l| n["layer"] == *l)
                    })
                    .map(|(path, n)| {
                        if tool == "go.find" {
                            json!({"instanceId": n["instanceId"], "name": n["name"], "hierarchyPath": path, "components": component_types(n), "tag": n["tag"], "layer": n["layer"]})
                        } else {
                            json!({"name": n["name"], "path": path, "instanceId": n["instanceId"], "components": component_types(n).iter().map(short_type).collect::<Vec<_>>(), "tag": n["tag"], "layer": n["layer"]})
                        }
                    })
                    .collect();
                let key = if tool == "go.find" { "hierarchyPath" } else { "path" };
                matches.sort_by(|x, y| x[key].as_str().cmp(&y[key].as_str()));
                if tool == "go.find" { out(json!({"matches": matches, "activeScene": scene_path})) } else { out(json!({"matches": matches})) }
            }),
            "scene.components.list" | "component.list" => self.with(|p| {
                let (scene_path, scene) = if tool == "component.list" { Demo::active(p)? } else {
                    let path = s(a, "scenePath").unwrap_or("").to_owned();
                    let sc = Demo::scene(p, &path)?;
                    (path, sc)
                };
                let key = if tool == "component.list" { "hierarchyPath" } else { "gameObjectPath" };
                let target = s(a, key).unwrap_or("");
                let mut all = Vec::new();
                walk(scene["roots"].as_array().map_or(&[][..], Vec::as_slice), "", &mut all);
                let (_, n) = all.into_iter().find(|(path, _)| path == target).ok_or_else(|| unity("GameObject not found").detail(key, target))?;
                let comps = n["components"].as_array().cloned().unwrap_or_default();
                if tool == "component.list" {
                    let with_props = a.get("includeProperties").and_then(Value::as_bool).unwrap_or(false);
                    let list: Vec<Value> = comps.iter().map(|c| {
                        let fields = c["fields"].as_array().cloned().unwrap_or_default();
                        let mut v = json!({"type": c["type"], "instanceId": c["instanceId"], "propertyCount": fields.len()});
                        if with_props {
                            v["properties"] = json!(fields.iter().map(|f| json!({"name": f["name"], "type": f["type"]})).collect::<Vec<_>>());
                        }
                        v
                    }).collect();
                    out(json!({"hierarchyPath": target, "components": list, "activeScene": scene_path}))
                } else {
                    let list: Vec<Value> = comps.iter().map(|c| json!({"type": short_type(&c["type"]), "instanceId": c["instanceId"], "serializedFields": c["fields"].as_array().cloned().unwrap_or_default()})).collect();
                    out(json!({"gameObjectPath": target, "components": list}))
                }
            }),
            "go.setParent" => self.with(|p| set_parent(p, s(a, "childPath").unwrap_or(""), s(a, "parentPath").unwrap_or(""))),
            "asset.info" => self.with(|p| {
                let path = s(a, "assetPath").unwrap_or("");
                let x = p["assets"].as_array().into_iter().flatten().find(|x| x["path"] == path)
                    .ok_or_else(|| unity("Asset not found").detail("assetPath", path))?;
                let mut v = json!({"path": x["path"], "guid": x["guid"], "type": x["type"], "sizeBytes": x["sizeBytes"], "importSettings": x["importSettings"]});
                if a.get("includeDependencies").and_then(Value::as_bool).unwrap_or(false) {
                    let mut deps = x["dependencies"].as_array().cloned().unwrap_or_default();
                    deps.sort_by(|x, y| x.as_str().cmp(&y.as_str()));
                    v["dependencies"] = json!(deps);
                }
                // A texture's answer carries its preview and its import settings
                // as the `.meta` text Unity keeps beside it.
                let mut answer = out(v)?;
                if x["type"] == "Texture2D" {
                    let meta = format!("guid: {}\nimportSettings: {}\n", x["guid"], x["importSettings"]);
                    answer.logs = vec![format!("rendered the preview of {path}")];
                    answer.content = vec![
                        Content::image(PREVIEW_PNG, "image/png"),
                        Content::resource_text(format!("unity://{path}.meta"), Some("text/yaml"), meta),
                    ];
                }
                Ok(answer)
            }),
            "asset.dependencies.graph" => self.with(|p| {
                let root = s(a, "assetPath").unwrap_or("");
                let depth = a.get("depth").and_then(Value::as_u64).unwrap_or(2);
                let direction = s(a, "direction").unwrap_or("both");
                let assets: Vec<&Value> = p["assets"].as_array().into_iter().flatten().collect();
                if !assets.iter().any(|x| x["path"] == root) {
                    return Err(unity("Asset not found").detail("assetPath", root));
                }
                let type_of = |path: &str| assets.iter().find(|x| x["path"] == path).map_or(json!("Unknown"), |x| x["type"].clone());
                let deps_of = |path: &str| -> Vec<String> {
                    assets.iter().find(|x| x["path"] == path).and_then(|x| x["dependencies"].as_array()).into_iter().flatten().filter_map(|d| d.as_str().map(str::to_owned)).collect()
                };
                let users_of = |path: &str| -> Vec<String> {
                    assets.iter().filter(|x| x["dependencies"].as_array().is_some_and(|d| d.iter().any(|d| d == path))).filter_map(|x| x["path"].as_str().map(str::to_owned)).collect()
                };
                let bfs = |next: &dyn Fn(&str) -> Vec<String>| -> Vec<Value> {
                    let mut seen = std::collections::BTreeMap::new();
                    let mut frontier = vec![root.to_owned()];
                    for d in 1..=depth {
                        let mut nf = Vec::new();
                        for f in &frontier {
                            for n in next(f) {
                                if n != root && !seen.contains_key(&n) {
                                    seen.insert(n.clone(), d);
                                    nf.push(n);
                                }
                            }
                        }
                        frontier = nf;
                    }
                    let mut v: Vec<(u64, String)> = seen.into_iter().map(|(k, d)| (d, k)).collect();
                    v.sort();
                    v.into_iter().map(|(d, path)| json!({"path": path, "type": type_of(&path), "depth": d})).collect()
                };
                let dependencies = if direction == "dependents" { vec![] } else { bfs(&deps_of) };
                let dependents = if direction == "dependencies" { vec![] } else { bfs(&users_of) };
                out(json!({"assetPath": root, "dependencies": dependencies, "dependents": dependents}))
            }),
            "audio.mixer.list" => self.with(|p| {
                let mut mixers: Vec<Value> = p["mixers"].as_array().into_iter().flatten().map(|m| {
                    let mut groups = m["groups"].as_array().cloned().unwrap_or_default();
                    groups.sort_by(|x, y| x["path"].as_str().cmp(&y["path"].as_str()));
                    let mut snaps: Vec<Value> = m["snapshots"].as_array().into_iter().flatten().map(|sn| json!({"name": sn["name"]})).collect();
                    snaps.sort_by(|x, y| x["name"].as_str().cmp(&y["name"].as_str()));
                    json!({"path": m["path"], "name": m["name"], "groups": groups, "snapshots": snaps})
                }).collect();
                mixers.sort_by(|x, y| x["path"].as_str().cmp(&y["path"].as_str()));
                out(json!({"mixers": mixers}))
            }),
            "audio.mixer.snapshot.read" => self.with(|p| {
                let (mp, sn) = (s(a, "mixerPath").unwrap_or(""), s(a, "snapshotName").unwrap_or(""));
                let mixer = p["mixers"].as_array().into_iter().flatten().find(|m| m["path"] == mp).ok_or_else(|| unity("AudioMixer not found").detail("mixerPath", mp))?;
                let snap = mixer["snapshots"].as_array().into_iter().flatten().find(|x| x["name"] == sn).ok_or_else(|| unity("Snapshot not found").detail("snapshotName", sn))?;
                let mut params = snap["parameters"].as_array().cloned().unwrap_or_default();
                params.sort_by(|x, y| x["group"].as_str().cmp(&y["group"].as_str()).then(x["name"].as_str().cmp(&y["name"].as_str())));
                out(json!({"mixerPath": mp, "snapshotName": sn, "parameters": params}))
            }),
            "editor.selection.info" => self.with(|p| {
                let active = p["activeScene"].as_str().unwrap_or("").to_owned();
                let mut all = Vec::new();
                if let Ok(scene) = Demo::scene(p, &active) {
                    walk(scene["roots"].as_array().map_or(&[][..], Vec::as_slice), "", &mut all);
                }
                let mut selected = Vec::new();
                let mut first_object = Value::Null;
                for sel in p["selection"].as_array().into_iter().flatten().filter_map(Value::as_str) {
                    if let Some((path, n)) = all.iter().find(|(path, _)| path == sel) {
                        selected.push(json!({"name": n["name"], "path": path, "type": "GameObject", "instanceId": n["instanceId"]}));
                        if first_object.is_null() {
                            first_object = json!({"name": n["name"], "path": path});
                        }
                    } else if let Some((i, x)) = p["assets"].as_array().into_iter().flatten().enumerate().find(|(_, x)| x["path"] == sel) {
                        let name = sel.rsplit('/').next().unwrap_or(sel).split('.').next().unwrap_or("");
                        selected.push(json!({"name": name, "path": sel, "type": x["type"], "instanceId": 90000 + i}));
                    }
                }
                out(json!({"selectedObjects": selected, "activeScene": active, "activeGameObject": first_object}))
            }),
            // A tool in the catalog that the demo has no behaviour for: one added to
            // tool-specs/ since. Say where its behaviour goes.
            other => Err(ToolError::execution(format!(
                "the demo project has no behaviour for `{other}` yet: add an arm for it to `Demo::call` in runtime/editormcp-server/src/demo.rs"
            ))
            .detail("tool", other)),
        }
    }
}

/// Moves `child` under `parent` (or to the scene root when empty) in the active scene.
fn set_parent(p: &mut Value, child: &str, parent: &str) -> Result<Answer, ToolError> {
    let active = p["activeScene"].as_str().unwrap_or("").to_owned();
    if active.is_empty() {
        return Err(unity("No active scene loaded"));
    }
    if !parent.is_empty() && (parent == child || parent.starts_with(&format!("{child}/"))) {
        return Err(unity("Cannot set parent to descendant")
            .detail("childPath", child)
            .detail("parentPath", parent));
    }
    let scenes = p["scenes"]
        .as_array_mut()
        .ok_or_else(|| unity("No active scene loaded"))?;
    let scene = scenes
        .iter_mut()
        .find(|s| s["path"] == active.as_str())
        .ok_or_else(|| unity("No active scene loaded"))?;
    let roots = scene["roots"]
        .as_array_mut()
        .ok_or_else(|| unity("No active scene loaded"))?;
    if !parent.is_empty() && find_mut(roots, parent).is_none() {
        return Err(unity("Parent GameObject not found").detail("parentPath", parent));
    }
    let node = take(roots, child)
        .ok_or_else(|| unity("Child GameObject not found").detail("childPath", child))?;
    let name = node["name"].as_str().unwrap_or("").to_owned();
    let new_path = if parent.is_empty() {
        roots.push(node);
        name
    } else {
        let target = find_mut(roots, parent).ok_or_else(|| unity("Parent GameObject not found"))?;
        if let Some(children) = target["children"].as_array_mut() {
            children.push(node);
        }
        format!("{parent}/{name}")
    };
    out(
        json!({"success": true, "childPath": child, "newParentPath": if parent.is_empty() { Value::Null } else { json!(parent) }, "newHierarchyPath": new_path}),
    )
}

fn find_mut<'a>(nodes: &'a mut [Value], path: &str) -> Option<&'a mut Value> {
    let (head, rest) = path
        .split_once('/')
        .map_or((path, None), |(h, r)| (h, Some(r)));
    let node = nodes.iter_mut().find(|n| n["name"] == head)?;
    match rest {
        None => Some(node),
        Some(r) => find_mut(node["children"].as_array_mut()?, r),
    }
}

fn take(nodes: &mut Vec<Value>, path: &str) -> Option<Value> {
    let (head, rest) = path
        .split_once('/')
        .map_or((path, None), |(h, r)| (h, Some(r)));
    let i = nodes.iter().position(|n| n["name"] == head)?;
    match rest {
        None => Some(nodes.remove(i)),
        Some(r) => take(nodes[i]["children"].as_array_mut()?, r),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn patterns() {
        assert!(wildcard("Gob*", "Goblin"));
        assert!(wildcard("G?blin", "Goblin"));
        assert!(!wildcard("Orc*", "Goblin"));
        let p = |s: &str| s.split('/').map(str::to_owned).collect::<Vec<_>>();
        let m = |pat: &str, path: &str| {
            let (a, b) = (p(pat), p(path));
            path_matches(
                &a.iter().map(String::as_str).collect::<Vec<_>>(),
                &b.iter().map(String::as_str).collect::<Vec<_>>(),
            )
        };
        assert!(m("Root/Enemies/*", "Root/Enemies/Goblin"));
        assert!(!m("Root/Enemies/*", "Root/Enemies"));
        assert!(m("Root/**/Goblin", "Root/Enemies/Goblin"));
        assert!(m("**", "Canvas/Panel/Button"));
    }
}
