//! Tool-set manifests (`toolset.yaml`).
//!
//! A manifest sits in a directory of spec files and says what they are: the
//! tool set's name, format, namespace, and the categories, tiers and safety
//! levels its tools may use. Every spec file below the manifest's directory
//! (down to the next manifest) belongs to its tool set.
//!
//! ```yaml
//! name: editormcp            # lowercase identifier: output directory and module name
//! title: EditorMCP Core
//! version: 0.1.0
//! format: editormcp          # editormcp | rave | mcp
//! namespace: EditorMcp.Core  # used by emitters that need one (C#)
//! defaultTimeoutSeconds: 30
//! categories:
//!   - id: scene
//!     description: Scene and hierarchy operations
//! tiers:                     # lowest first
//!   - id: core
//!     title: Core
//! safetyLevels: [read-only, safe-write]
//! maxTier: core              # optional: no tool above this tier
//! templates: templates       # optional: template overrides, relative to this file
//! specs: inst/mcp/tools      # optional: where the spec files are, relative to this file
//! outputs: [catalog, docs]   # optional: only these outputs (catalog, rust, csharp, docs, r)
//! lints:                     # optional: rule levels (allow, warn, deny), by code or name
//!   TG0603: allow
//! runtime: bundled           # optional: where the generated crate gets toolgen-runtime
//! bridgePort: 24567          # optional: the Unity bridge's port (default: from the project path)
//! r:                         # optional: the R functions behind the tools (R worker)
//!   package: ravedemo        #   every tool's package (default: the id's `pkg-` prefix)
//!   functions:               #   one tool's function: `fn`, `pkg::fn` or `pkg:::fn`
//!     ravedemo-mcp_tool_config_get: config_get
//! ```
//!
//! With `specs`, the manifest governs only the files below those paths, and a
//! directory walk that meets the manifest reads only them: a manifest can sit
//! at a package's root, outside a folder that another program owns (RAVE's
//! generator reads every YAML file in `inst/mcp/tools/` as a tool).

use crate::diag::{Diagnostic, rule};
use crate::diag::{LintLevel, configurable_rule};
use crate::formats::{self, fields::Cx};
use crate::ir::{Category, Format, OutputKind, RuntimeSource, SafetyLevel, Spanned, Tier, ToolSet};
use crate::syntax::{Node, NodeKind};

/// File names recognised as manifests.
pub const MANIFEST_NAMES: &[&str] = &["toolset.yaml", "toolset.yml"];

pub(crate) const KEYS: &[&str] = &[
    "name",
    "title",
    "description",
    "version",
    "format",
    "namespace",
    "defaultTimeoutSeconds",
    "categories",
    "tiers",
    "safetyLevels",
    "maxTier",
    "templates",
    "specs",
    "outputs",
    "lints",
    "breaking",
    "runtime",
    "modelDescription",
    "execution",
    "rustSerde",
    "r",
    "bridgePort",
    "clients",
    "splitUnions",
];

/// The manifest's `specs`: where its spec files are, relative to it, as
/// written. Read before the rest of the manifest (the directory walk needs
/// it); `None` when absent or not a string or a list of strings (then
/// [`read`] reports it).
/// The manifest's `templates` directory as written (relative to it), if
/// it names one as a string.
pub fn templates_path(root: &Node) -> Option<&str> {
    match &root.get("templates")?.kind {
        NodeKind::String(s) => Some(s),
        _ => None,
    }
}

pub fn spec_paths(root: &Node) -> Option<Vec<String>> {
    let node = root.get("specs")?;
    match &node.kind {
        NodeKind::String(s) => Some(vec![s.clone()]),
        NodeKind::Array(items) => items
            .iter()
            .map(|i| i.as_str().map(str::to_owned))
            .collect(),
        _ => None,
    }
}

/// Whether `s` is a valid tool-set name.
pub fn is_valid_name(s: &str) -> bool {
    let mut c = s.chars();
    c.next().is_some_and(|f| f.is_ascii_lowercase())
        && c.all(|ch| ch.is_ascii_lowercase() || ch.is_ascii_digit() || ch == '_')
}

fn is_valid_namespace(s: &str) -> bool {
    !s.is_empty() && s.split('.').all(formats::fields::is_identifier)
}

/// Reads a manifest into a tool set without tools. Returns `None` if the
/// manifest is unusable (the problems have been reported).
pub fn read(cx: &mut Cx<'_>, root: &Node) -> Option<ToolSet> {
    let obj = cx.object(root, "a tool-set manifest")?;
    cx.check_keys(obj, KEYS, false, "a tool-set manifest");
    let format = read_format(cx, root, obj)?;
    let mut set = formats::default_tool_set(format);
    set.manifest = Some(cx.loc(root.span));
    // Every part is read (and its problems reported) even after one fails.
    let ok = [
        read_name(cx, root, obj, &mut set),
        read_texts(cx, obj, &mut set),
        read_policies(cx, obj, &mut set),
        read_generation(cx, obj, &mut set),
    ];
    ok.iter().all(|ok| *ok).then_some(set)
}

/// The optional fields of one object, read one by one; remembers whether
/// every field present was valid.
struct Fields<'o> {
    obj: &'o [crate::syntax::Member],
    ok: bool,
}

impl<'o> Fields<'o> {
    fn new(obj: &'o [crate::syntax::Member]) -> Self {
        Fields { obj, ok: true }
    }

    /// Field `key` read by `read`: `None` when it is absent, or invalid (then
    /// `read` has reported it).
    fn read<T>(&mut self, key: &str, read: impl FnOnce(&'o Node) -> Option<T>) -> Option<T> {
        let node = &self.obj.iter().find(|m| m.key == key)?.value;
        let value = read(node);
        self.ok &= value.is_some();
        value
    }
}

/// `format`, required; `None` (reported) when it is missing or unknown.
fn read_format(cx: &mut Cx<'_>, root: &Node, obj: &[crate::syntax::Member]) -> Option<Format> {
    let format_node = cx.require(
        root,
        obj,
        "format",
        "the manifest",
        "the format of the tool set's files: editormcp, rave or mcp",
    )?;
    let format = cx.string(format_node, "`format`", true)?;
    cx.word(&rule::INVALID_VALUE, &format, "format")
}

/// `name`, required, a lowercase identifier (TG0504).
fn read_name(
    cx: &mut Cx<'_>,
    root: &Node,
    obj: &[crate::syntax::Member],
    set: &mut ToolSet,
) -> bool {
    let Some(n) = cx.require(
        root,
        obj,
        "name",
        "the manifest",
        "a lowercase identifier, e.g. editormcp",
    ) else {
        return false;
    };
    let Some(name) = cx.string(n, "`name`", true) else {
        return false;
    };
    if !is_valid_name(&name.value) {
        cx.report(
            Diagnostic::at(
                &rule::TOOLSET_NAME,
                name.loc,
                format!(
                    "tool set name `{}` is not a lowercase identifier",
                    name.value
                ),
            )
            .label("invalid name")
            .help("use lowercase letters, digits and `_`, starting with a letter"),
        );
        return false;
    }
    set.name = name.value;
    true
}

/// `title`, `description`, `version` and `namespace`.
fn read_texts(cx: &mut Cx<'_>, obj: &[crate::syntax::Member], set: &mut ToolSet) -> bool {
    let mut fields = Fields::new(obj);
    for (key, slot) in [
        ("title", &mut set.title),
        ("description", &mut set.description),
        ("version", &mut set.version),
    ] {
        if let Some(s) = fields.read(key, |n| cx.string(n, &format!("`{key}`"), true)) {
            *slot = Some(s.value);
        }
    }
    if let Some(ns) = fields.read("namespace", |n| namespace(cx, n)) {
        set.namespace = ns;
    }
    fields.ok
}

/// `namespace`: identifiers separated by dots.
fn namespace(cx: &mut Cx<'_>, n: &Node) -> Option<String> {
    let ns = cx.string(n, "`namespace`", true)?;
    if !is_valid_namespace(&ns.value) {
        cx.report(
            Diagnostic::at(
                &rule::TOOLSET_NAME,
                ns.loc,
                format!(
                    "namespace `{}` is not a dot-separated list of identifiers",
                    ns.value
                ),
            )
            .label("invalid namespace")
            .help("e.g. `EditorMcp.Core`"),
        );
        return None;
    }
    Some(ns.value)
}

/// What the tool set allows: `defaultTimeoutSeconds`, `categories`, `tiers`,
/// `safetyLevels` and `maxTier`.
fn read_policies(cx: &mut Cx<'_>, obj: &[crate::syntax::Member], set: &mut ToolSet) -> bool {
    let mut fields = Fields::new(obj);
    let timeout = fields.read("defaultTimeoutSeconds", |n| {
        let v = cx.number(n, "`defaultTimeoutSeconds`")?;
        formats::fields::check_timeout(cx, v, cx.loc(n.span)).then_some(v)
    });
    if let Some(v) = timeout {
        set.default_timeout_seconds = Some(v);
    }
    if let Some(items) = fields.read("categories", |n| {
        id_list(cx, n, "`categories`", "description")
    }) {
        set.categories = items
            .into_iter()
            .map(|(id, description)| Category { id, description })
            .collect();
    }
    if let Some(items) = fields.read("tiers", |n| id_list(cx, n, "`tiers`", "title")) {
        set.tiers = items
            .into_iter()
            .map(|(id, title)| Tier { id, title })
            .collect();
    }
    if let Some(levels) = fields.read("safetyLevels", |n| safety_levels(cx, n)) {
        set.safety_levels = levels;
    }
    if let Some(tier) = fields.read("maxTier", |n| max_tier(cx, n, set)) {
        set.max_tier = Some(tier);
    }
    fields.ok
}

/// `maxTier`: one of the tool set's tiers.
fn max_tier(cx: &mut Cx<'_>, n: &Node, set: &ToolSet) -> Option<String> {
    let t = cx.string(n, "`maxTier`", true)?;
    if set.tiers.iter().any(|x| x.id == t.value) {
        return Some(t.value);
    }
    let ids: Vec<&str> = set.tiers.iter().map(|x| x.id.as_str()).collect();
    cx.unknown_value(&rule::INVALID_VALUE, t.loc, &t.value, "tier", &ids);
    None
}

/// How the tool set is generated and served: `templates`, `specs`,
/// `outputs`, `lints`, `runtime`, `modelDescription`, `execution`, `rustSerde`
/// and `clients`.
fn read_generation(cx: &mut Cx<'_>, obj: &[crate::syntax::Member], set: &mut ToolSet) -> bool {
    let mut fields = Fields::new(obj);
    if let Some(t) = fields.read("templates", |n| cx.string(n, "`templates`", true)) {
        set.templates = Some(Spanned::new(std::path::PathBuf::from(t.value), t.loc));
    }
    fields.read("specs", |n| specs(cx, n).then_some(()));
    if let Some(o) = fields.read("outputs", |n| outputs(cx, n)) {
        set.outputs = Some(o);
    }
    if let Some(l) = fields.read("lints", |n| lints(cx, n)) {
        set.lints = l;
    }
    if let Some(b) = fields.read("breaking", |n| breaking(cx, n)) {
        set.breaking = b;
    }
    if let Some(r) = fields.read("runtime", |n| runtime(cx, n)) {
        set.runtime = Some(r);
    }
    let model = fields.read("modelDescription", |n| {
        let s = cx.string(n, "`modelDescription`", true)?;
        cx.word(&rule::INVALID_VALUE, &s, "model description")
    });
    if let Some(m) = model {
        set.model_description = m;
    }
    let execution = fields.read("execution", |n| {
        let s = cx.string(n, "`execution`", true)?;
        cx.word(&rule::INVALID_VALUE, &s, "execution")
    });
    if let Some(e) = execution {
        set.execution = e;
    }
    let serde = fields.read("rustSerde", |n| {
        let s = cx.string(n, "`rustSerde`", true)?;
        let word = cx.word(&rule::INVALID_VALUE, &s, "`rustSerde` value")?;
        Some(Spanned::new(word, s.loc))
    });
    if let Some(s) = serde {
        set.rust_serde = Some(s);
    }
    if let Some(r) = fields.read("r", |n| r_binding(cx, n)) {
        set.r = r;
    }
    if let Some(c) = fields.read("clients", |n| clients(cx, n)) {
        set.clients = c;
    }
    if let Some(b) = fields.read("splitUnions", |n| cx.boolean(n, "`splitUnions`")) {
        set.split_unions = b;
    }
    let port = fields.read("bridgePort", |n| {
        let v = cx.number(n, "`bridgePort`")?;
        match u16::try_from(v as i64) {
            Ok(p) if v.fract() == 0.0 && p >= 1024 => Some(p),
            _ => {
                cx.report(
                    Diagnostic::at(
                        &rule::INVALID_VALUE,
                        cx.loc(n.span),
                        format!("`bridgePort` is {v}, not a port the Unity bridge can listen on"),
                    )
                    .label("not a port from 1024 to 65535")
                    .help("give a whole number from 1024 to 65535, or leave `bridgePort` out to derive the port from the Unity project's path"),
                );
                None
            }
        }
    });
    if let Some(p) = port {
        set.bridge_port = Some(p);
    }
    fields.ok
}

/// `r`: `{package: PKG, functions: {TOOL_ID: "fn" | "pkg::fn" | "pkg:::fn"}}`.
fn r_binding(cx: &mut Cx<'_>, node: &Node) -> Option<crate::ir::RBinding> {
    use crate::ir::RFunction;
    let members = cx.object(node, "`r`")?;
    cx.check_keys(members, &["package", "functions"], false, "`r`");
    let mut binding = crate::ir::RBinding::default();
    let mut ok = true;
    if let Some(m) = members.iter().find(|m| m.key == "package") {
        match cx.string(&m.value, "`r.package`", true) {
            Some(p) if crate::ir::is_r_package(&p.value) => binding.package = Some(p),
            Some(p) => {
                cx.report(
                    Diagnostic::at(
                        &rule::INVALID_VALUE,
                        p.loc,
                        format!("`{}` is not the name of an R package", p.value),
                    )
                    .label("not an R package name")
                    .help("R package names are letters, digits and `.`, start with a letter and have two characters or more"),
                );
                ok = false;
            }
            None => ok = false,
        }
    }
    if let Some(m) = members.iter().find(|m| m.key == "functions") {
        let package = binding.package.as_ref().map(|p| p.value.as_str());
        for f in cx.object(&m.value, "`r.functions`").into_iter().flatten() {
            let tool = Spanned::new(f.key.clone(), cx.loc(f.key_span));
            let Some(text) = cx.string(&f.value, "a function of `r.functions`", true) else {
                ok = false;
                continue;
            };
            match RFunction::parse(&text.value, package) {
                Some(function) => binding
                    .functions
                    .push((tool, Spanned::new(function, text.loc))),
                None => {
                    let help = if package.is_none() && !text.value.contains("::") {
                        "name the package too (`pkg:::fn`), or give `r.package`"
                    } else {
                        "write `fn`, `pkg::fn` or `pkg:::fn` with R names"
                    };
                    cx.report(
                        Diagnostic::at(
                            &rule::INVALID_VALUE,
                            text.loc,
                            format!("`{}` does not name an R function", text.value),
                        )
                        .label("not an R function")
                        .help(help),
                    );
                    ok = false;
                }
            }
        }
    }
    ok.then_some(binding)
}

/// `breaking`: `{off: [category..], ignore: [{tool, rules?, reason?}..]}`.
fn breaking(cx: &mut Cx<'_>, node: &Node) -> Option<crate::ir::BreakingPolicy> {
    let members = cx.object(node, "`breaking`")?;
    cx.check_keys(members, &["off", "on", "ignore"], false, "`breaking`");
    let mut policy = crate::ir::BreakingPolicy::default();
    let mut ok = true;
    for key in ["off", "on"] {
        let Some(m) = members.iter().find(|m| m.key == key) else {
            continue;
        };
        for n in cx
            .array(&m.value, &format!("`breaking.{key}`"))
            .into_iter()
            .flatten()
        {
            let Some(s) = cx.string(n, &format!("a category of `breaking.{key}`"), true) else {
                ok = false;
                continue;
            };
            if crate::diag::BREAKING_CATEGORIES.contains(&s.value.as_str()) {
                if key == "off" {
                    policy.off.push(s);
                } else {
                    policy.on.push(s);
                }
            } else {
                cx.report(
                    Diagnostic::at(
                        &rule::INVALID_VALUE,
                        s.loc,
                        format!("`{}` is not a category of breaking changes", s.value),
                    )
                    .label("unknown category")
                    .help(format!(
                        "use one of {}",
                        crate::text::list(crate::diag::BREAKING_CATEGORIES)
                    )),
                );
                ok = false;
            }
        }
    }
    if let Some(m) = members.iter().find(|m| m.key == "ignore") {
        for entry in cx
            .array(&m.value, "`breaking.ignore`")
            .into_iter()
            .flatten()
        {
            let Some(fields) = cx.object(entry, "an entry of `breaking.ignore`") else {
                ok = false;
                continue;
            };
            cx.check_keys(
                fields,
                &["tool", "rules", "path", "reason"],
                false,
                "an entry of `breaking.ignore`",
            );
            let Some(tool) = fields
                .iter()
                .find(|f| f.key == "tool")
                .and_then(|f| cx.string(&f.value, "`tool`", true))
            else {
                cx.report(
                    Diagnostic::at(
                        &rule::MISSING_FIELD,
                        cx.loc(entry.span),
                        "an entry of `breaking.ignore` needs `tool`",
                    )
                    .help(
                        "name the tool whose breaking changes are accepted: `- tool: scene.find`",
                    ),
                );
                ok = false;
                continue;
            };
            let mut rules = Vec::new();
            if let Some(f) = fields.iter().find(|f| f.key == "rules") {
                for n in cx.array(&f.value, "`rules`").into_iter().flatten() {
                    let Some(r) = cx.string(n, "a rule of `rules`", true) else {
                        continue;
                    };
                    match crate::diag::find_rule(&r.value).filter(|rule| rule.is_breaking()) {
                        Some(rule) => rules.push(rule),
                        None => {
                            cx.report(
                                Diagnostic::at(&rule::INVALID_VALUE, r.loc, format!("`{}` is not a rule of `toolgen breaking`", r.value))
                                    .label("unknown rule")
                                    .help("use a code or name from docs/breaking.md, e.g. `tool-removed` or `TG0910`"),
                            );
                            ok = false;
                        }
                    }
                }
            }
            let path = fields
                .iter()
                .find(|f| f.key == "path")
                .and_then(|f| cx.string(&f.value, "`path`", true));
            if let Some(p) = &path {
                let side = p.value.split('.').next().unwrap_or_default();
                if side != "input" && side != "output" {
                    cx.report(
                        Diagnostic::at(&rule::INVALID_VALUE, p.loc, format!("`{}` is not a part of a tool", p.value))
                            .label("starts with `input` or `output`")
                            .help("name a side and the properties on the way, e.g. `input.depth` or `output.items.size`"),
                    );
                    ok = false;
                }
            }
            policy
                .ignore
                .push(crate::ir::BreakingIgnore { tool, rules, path });
        }
    }
    ok.then_some(policy)
}

/// `runtime`: where the generated crate gets `toolgen-runtime` from.
fn runtime(cx: &mut Cx<'_>, n: &Node) -> Option<Spanned<RuntimeSource>> {
    let r = cx.string(n, "`runtime`", true)?;
    match RuntimeSource::parse(&r.value) {
        Ok(source) => Some(Spanned::new(source, r.loc)),
        Err(e) => {
            cx.report(
                Diagnostic::at(&rule::INVALID_VALUE, r.loc, e)
                    .label("not a runtime source")
                    .help("`bundled` (the default) writes the runtime beside the generated crate; `path=../runtime` is relative to the generated Cargo.toml"),
            );
            None
        }
    }
}

/// Checks `specs`: a path or list of relative paths to existing directories.
fn specs(cx: &mut Cx<'_>, node: &Node) -> bool {
    let items: Vec<&Node> = match &node.kind {
        NodeKind::String(_) => vec![node],
        NodeKind::Array(items) if !items.is_empty() => items.iter().collect(),
        _ => {
            cx.wrong_type(
                node,
                "`specs`",
                "a path or a non-empty list of paths, relative to the manifest",
            );
            return false;
        }
    };
    let mut ok = true;
    for item in items {
        let Some(p) = cx.string(item, "an entry of `specs`", true) else {
            ok = false;
            continue;
        };
        let path = std::path::Path::new(&p.value);
        if path.is_absolute()
            || path
                .components()
                .any(|c| matches!(c, std::path::Component::ParentDir))
        {
            cx.report(
                Diagnostic::at(
                    &rule::INVALID_VALUE,
                    p.loc,
                    format!("`specs` entry `{}` leaves the manifest's directory", p.value),
                )
                .label("not below the manifest")
                .help("name folders below the manifest's directory, e.g. `inst/mcp/tools`; a manifest elsewhere is given with `--manifest`"),
            );
            ok = false;
        }
    }
    ok
}

/// Reads `outputs`: a non-empty list of output names.
fn outputs(cx: &mut Cx<'_>, node: &Node) -> Option<Vec<OutputKind>> {
    let Some(items) = node.as_array().filter(|i| !i.is_empty()) else {
        cx.wrong_type(node, "`outputs`", "a non-empty list of outputs");
        return None;
    };
    let mut out = Vec::new();
    let mut ok = true;
    for item in items {
        let Some(s) = cx.string(item, "an entry of `outputs`", true) else {
            ok = false;
            continue;
        };
        match cx.word::<OutputKind>(&rule::INVALID_VALUE, &s, "output") {
            Some(k) if !out.contains(&k) => out.push(k),
            Some(_) => {
                cx.listed_twice(s.loc, &s.value, "`outputs`");
                ok = false;
            }
            None => ok = false,
        }
    }
    out.sort();
    ok.then_some(out)
}

/// Reads `clients`: a non-empty list of client profiles.
fn clients(cx: &mut Cx<'_>, node: &Node) -> Option<Vec<crate::ir::Client>> {
    let Some(items) = node.as_array().filter(|i| !i.is_empty()) else {
        cx.wrong_type(node, "`clients`", "a non-empty list of clients");
        return None;
    };
    let mut out = Vec::new();
    let mut ok = true;
    for item in items {
        let Some(s) = cx.string(item, "an entry of `clients`", true) else {
            ok = false;
            continue;
        };
        match cx.word::<crate::ir::Client>(&rule::INVALID_VALUE, &s, "client") {
            Some(c) if !out.contains(&c) => out.push(c),
            Some(_) => {
                cx.listed_twice(s.loc, &s.value, "`clients`");
                ok = false;
            }
            None => ok = false,
        }
    }
    ok.then_some(out)
}

/// Reads `lints`: rule (code or name) -> `allow`, `warn` or `deny`.
fn lints(
    cx: &mut Cx<'_>,
    node: &Node,
) -> Option<Vec<(&'static crate::diag::Rule, LintLevel, crate::source::Loc)>> {
    let members = cx.object(node, "`lints`")?;
    let mut out: Vec<(&'static crate::diag::Rule, LintLevel, crate::source::Loc)> = Vec::new();
    let mut ok = true;
    for m in members {
        let Some(level) = cx.string(&m.value, &format!("the level of `{}`", m.key), true) else {
            ok = false;
            continue;
        };
        let Some(l) = cx.word::<LintLevel>(&rule::INVALID_VALUE, &level, "level") else {
            ok = false;
            continue;
        };
        let key_loc = cx.loc(m.key_span);
        match configurable_rule(&m.key, l) {
            Ok(rule) if out.iter().any(|(r, _, _)| std::ptr::eq(*r, rule)) => {
                cx.report(
                    Diagnostic::at(
                        &rule::INVALID_VALUE,
                        key_loc,
                        format!("{} is set twice in `lints`", rule.code),
                    )
                    .label("set again")
                    .help("a rule's code and its name are the same rule; keep one"),
                );
                ok = false;
            }
            Ok(rule) => out.push((rule, l, key_loc)),
            Err(e) => {
                cx.report(
                    Diagnostic::at(&rule::INVALID_VALUE, key_loc, e)
                        .label("cannot be set")
                        .help("`toolgen rules` lists every rule with its default level"),
                );
                ok = false;
            }
        }
    }
    ok.then_some(out)
}

/// A list of `id` strings or `{id, <extra>}` objects; duplicates are reported.
fn id_list(
    cx: &mut Cx<'_>,
    node: &Node,
    what: &str,
    extra: &str,
) -> Option<Vec<(String, Option<String>)>> {
    let Some(items) = node.as_array() else {
        cx.wrong_type(node, what, "a list");
        return None;
    };
    let mut out: Vec<(String, Option<String>)> = Vec::new();
    let mut ok = true;
    for item in items {
        let entry = match &item.kind {
            NodeKind::String(_) => cx
                .string(item, &format!("an entry of {what}"), true)
                .map(|s| (s, None)),
            NodeKind::Object(fields) => {
                cx.check_keys(
                    fields,
                    &["id", extra],
                    false,
                    &format!("an entry of {what}"),
                );
                let id = cx
                    .require(item, fields, "id", &format!("an entry of {what}"), "its id")
                    .and_then(|n| cx.string(n, "`id`", true));
                let x = item
                    .get(extra)
                    .and_then(|n| cx.string(n, &format!("`{extra}`"), true))
                    .map(|s| s.value);
                id.map(|id| (id, x))
            }
            _ => {
                cx.wrong_type(
                    item,
                    &format!("an entry of {what}"),
                    "a string or an object with `id`",
                );
                None
            }
        };
        let Some((id, x)) = entry else {
            ok = false;
            continue;
        };
        if out.iter().any(|(o, _)| *o == id.value) {
            cx.listed_twice(id.loc, &id.value, what);
            ok = false;
            continue;
        }
        out.push((id.value, x));
    }
    ok.then_some(out)
}

fn safety_levels(cx: &mut Cx<'_>, node: &Node) -> Option<Vec<SafetyLevel>> {
    let Some(items) = node.as_array() else {
        cx.wrong_type(node, "`safetyLevels`", "a list");
        return None;
    };
    let mut out = Vec::new();
    for item in items {
        let s = cx.string(item, "an entry of `safetyLevels`", true)?;
        match formats::fields::safety_level(cx, &s) {
            Some(l) if !out.contains(&l) => out.push(l),
            Some(_) => {}
            None => return None,
        }
    }
    out.sort();
    Some(out)
}
