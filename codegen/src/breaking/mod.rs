//! `toolgen breaking`: the changes between two versions of a project's specs
//! that break the callers of its tools.
//!
//! Compares on the IR, so it works across formats (a tool rewritten from
//! EditorMCP JSON to MCP JSON is the same tool if its id is). Tools are
//! matched by tool set and id. Schemas are compared side by side with
//! `$ref`s followed, in the direction that matters: an input breaks callers
//! when it accepts less (a new required parameter, a narrower type, a
//! removed enum value, a tighter bound), an output when it promises less (a
//! removed or optional field, a wider type, a new enum value). Every finding
//! is a diagnostic located in the new spec, naming where the old one said
//! otherwise (old locations are in the same `SourceDb`, under the old
//! revision's name).

pub(crate) mod names;

use std::collections::{BTreeMap, BTreeSet};

use serde_json::{Map, Value};

use crate::diag::{Diagnostic, Rule, rule};
use crate::ir::{BreakingPolicy, Project, Schema, Tool, ToolSet};
use crate::schema::{local_target, pointer_join, strings, types_of};
use crate::source::Loc;
use crate::text::list;

/// Which side of a tool a schema describes: what breaks differs.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Side {
    Input,
    Output,
}

impl Side {
    fn word(self) -> &'static str {
        match self {
            Side::Input => "input",
            Side::Output => "output",
        }
    }
}

/// Every breaking (and notable) change from `old` to `new`. `old_loc` turns a
/// location of the old project into one of the `SourceDb` the diagnostics
/// are rendered with.
pub fn compare(old: &Project, new: &Project, old_loc: &dyn Fn(Loc) -> Loc) -> Vec<Diagnostic> {
    let mut cx = Cx::new(old_loc);
    let old_tools = tools_by_key(old);
    let new_tools = tools_by_key(new);
    for ((set, id), (new_set, new_tool)) in &new_tools {
        if let Some((old_set, old_tool)) = old_tools.get(&(set.clone(), id.clone())) {
            cx.tool = id.clone();
            cx.policy = Some(&new_set.breaking);
            cx.tool(old_set, old_tool, new_set, new_tool);
        }
    }
    let new_sets: BTreeMap<&str, &ToolSet> =
        new.tool_sets.iter().map(|s| (s.name.as_str(), s)).collect();
    for ((set, id), (old_set, old_tool)) in &old_tools {
        if new_tools.contains_key(&(set.clone(), id.clone())) {
            continue;
        }
        cx.tool = id.clone();
        cx.policy = Some(&new_sets.get(set.as_str()).unwrap_or(old_set).breaking);
        let added: Vec<&str> = new_tools
            .keys()
            .filter(|(s, i)| s == set && !old_tools.contains_key(&(s.clone(), i.clone())))
            .map(|(_, i)| i.as_str())
            .collect();
        if let Some(d) = &old_tool.deprecated {
            let old_at = (cx.old_loc)(d.loc);
            let sunset = d.value.sunset.as_deref();
            let early = sunset.is_some_and(|s| s > today().as_str());
            let d = if early {
                Diagnostic::at(
                    &rule::BREAKING_REMOVED_BEFORE_SUNSET,
                    old_at,
                    format!(
                        "deprecated tool `{id}` was removed before its sunset date, {}",
                        sunset.unwrap_or_default()
                    ),
                )
                .label("promised until then")
                .help("keep the tool until its sunset date, or move the date and tell its callers")
            } else {
                Diagnostic::at(
                    &rule::BREAKING_DEPRECATED_REMOVED,
                    old_at,
                    format!("deprecated tool `{id}` was removed, as announced"),
                )
                .label("deprecated here")
            };
            cx.emit(d);
            continue;
        }
        let similar = crate::text::did_you_mean(id, added.iter().copied());
        let renamed_to = similar.and_then(|s| new_tools.get(&(set.clone(), s.to_owned())));
        match renamed_to {
            Some((_, t)) => cx.emit(
                Diagnostic::at(
                    &rule::BREAKING_TOOL_RENAMED,
                    t.id.loc,
                    format!(
                        "tool `{id}` was renamed to `{}`: clients calling `{id}` fail",
                        t.id.value
                    ),
                )
                .label("the new name")
                .secondary((cx.old_loc)(old_tool.id.loc), "the old name")
                .help("keep the old tool beside the new one until its callers have moved, or accept the change in the tool set's configuration"),
            ),
            // Nothing in the new specs to point at: the old definition.
            None => cx.emit(
                Diagnostic::at(
                    &rule::BREAKING_TOOL_REMOVED,
                    (cx.old_loc)(old_tool.id.loc),
                    format!("tool `{id}` of tool set `{set}` was removed: clients calling it fail"),
                )
                .label("the removed tool")
                .help("keep the tool until its callers have moved, or accept the removal in the tool set's configuration"),
            ),
        }
    }
    cx.out
}

type Tools<'p> = BTreeMap<(String, String), (&'p ToolSet, &'p Tool)>;

fn tools_by_key(p: &Project) -> Tools<'_> {
    p.tool_sets
        .iter()
        .flat_map(|s| {
            s.tools
                .iter()
                .map(move |t| ((s.name.clone(), t.id.value.clone()), (s, t)))
        })
        .collect()
}

struct Cx<'a> {
    out: Vec<Diagnostic>,
    old_loc: &'a dyn Fn(Loc) -> Loc,
    /// The tool being compared, and the policy of its (new, else old) tool set.
    tool: String,
    policy: Option<&'a BreakingPolicy>,
    /// The part of the tool being compared, as a manifest's ignore names it
    /// (`input.depth`, `output.items`; empty for the tool itself).
    path: String,
}

/// The two subschemas being compared at one position: old (`o`, at `op`)
/// and new (`n`); where the new one is, and how messages name it.
#[derive(Clone, Copy)]
struct Nodes<'v> {
    o: &'v Map<String, Value>,
    op: &'v str,
    n: &'v Map<String, Value>,
    at: Loc,
    what: &'v str,
}

/// One side of a tool being compared: its schema, the tool's id.
struct Pair<'s> {
    side: Side,
    tool: &'s str,
    /// The new tool's definition: where a finding goes that has no better place.
    tool_loc: Loc,
    old: &'s Schema,
    new: &'s Schema,
}

impl<'a> Cx<'a> {
    fn new(old_loc: &'a dyn Fn(Loc) -> Loc) -> Cx<'a> {
        Cx {
            out: Vec::new(),
            old_loc,
            tool: String::new(),
            policy: None,
            path: String::new(),
        }
    }

    /// Keeps a finding unless the tool set's policy accepts it: its category
    /// is off, or the tool's `ignore` entry covers its rule.
    fn emit(&mut self, d: Diagnostic) {
        if let Some(p) = self.policy {
            let category = d.rule.breaking_category().unwrap_or_default();
            let off = p.off.iter().any(|c| c.value == category);
            let ignored = p.ignore.iter().any(|i| {
                i.tool.value == self.tool
                    && (i.rules.is_empty() || i.rules.iter().any(|r| std::ptr::eq(*r, d.rule)))
                    && i.path.as_ref().is_none_or(|part| {
                        self.path == part.value
                            || self.path.starts_with(&format!("{}.", part.value))
                    })
            });
            if off || ignored {
                return;
            }
        }
        self.out.push(d);
    }

    fn tool(&mut self, old_set: &ToolSet, old: &Tool, new_set: &ToolSet, new: &Tool) {
        let id = &new.id.value;
        self.path = String::new();
        self.behaviour(old_set, old, new_set, new);
        for (side, o, n) in [
            (Side::Input, &old.input, &new.input),
            (Side::Output, &old.output, &new.output),
        ] {
            let pair = Pair {
                side,
                tool: id,
                tool_loc: new.loc,
                old: o,
                new: n,
            };
            if side == Side::Output && !o.value.is_null() && n.value.is_null() {
                self.path = "output".to_owned();
                self.push(
                    &rule::BREAKING_OUTPUT_SCHEMA_REMOVED,
                    new.loc,
                    o.locate(""),
                    format!("`{id}` no longer declares an output schema: clients relying on structured results break"),
                    "keep the output schema; widen it deliberately, in a new tool if need be",
                );
                continue;
            }
            if o.value.is_null() || n.value.is_null() {
                continue;
            }
            let mut seen = BTreeSet::new();
            self.schema(&pair, &o.value, "", &n.value, "", &mut seen);
        }
        self.path = String::new();
        if old.description.value != new.description.value {
            self.push(
                &rule::BREAKING_DESCRIPTION_CHANGED,
                new.description.loc,
                Some(old.description.loc),
                format!("the description of `{id}` changed"),
                "models read descriptions to choose tools; check that the new one still fits how it is called",
            );
        }
        if old.name.value != new.name.value && !new.implied.name {
            self.push(
                &rule::BREAKING_TITLE_CHANGED,
                new.name.loc,
                Some(old.name.loc),
                format!(
                    "the title of `{id}` changed from \"{}\" to \"{}\"",
                    old.name.value, new.name.value
                ),
                "titles are shown to people; nothing breaks",
            );
        }
    }

    /// A diagnostic at `at` in the new spec, with `old` (a location in the
    /// old spec) as its secondary.
    fn push(&mut self, r: &'static Rule, at: Loc, old: Option<Loc>, message: String, help: &str) {
        let mut d = Diagnostic::at(r, at, message).help(help);
        if let Some(l) = old {
            d = d.secondary((self.old_loc)(l), "before");
        }
        self.emit(d);
    }

    fn behaviour(&mut self, old_set: &ToolSet, old: &Tool, new_set: &ToolSet, new: &Tool) {
        let id = &new.id.value;
        let at = new.safety.loc;
        let (was, now) = (old.safety.value, new.safety.value);
        use crate::ir::SafetyLevel::{Destructive, ReadOnly};
        if was == ReadOnly && now != ReadOnly {
            self.behaviour_change(
                &rule::BREAKING_WRITES,
                at,
                old.safety.loc,
                format!("`{id}` was read-only and now writes (`{now}`): clients that call it freely, without asking, now change things"),
            );
        }
        if was != Destructive && now == Destructive {
            self.behaviour_change(
                &rule::BREAKING_DESTRUCTIVE,
                at,
                old.safety.loc,
                format!("`{id}` is now destructive (was `{was}`): clients that do not ask for confirmation can now lose data"),
            );
        }
        let hint = |t: &Tool, k: &str| t.hints.get(k).and_then(|v| v.value.as_bool());
        if hint(old, "idempotentHint") == Some(true) && hint(new, "idempotentHint") != Some(true) {
            let loc = new.hints.get("idempotentHint").map_or(new.loc, |h| h.loc);
            let old_at = old.hints.get("idempotentHint").map_or(old.loc, |h| h.loc);
            self.behaviour_change(
                &rule::BREAKING_NOT_IDEMPOTENT,
                loc,
                old_at,
                format!("`{id}` is no longer idempotent: clients that retry calls may now repeat its effect"),
            );
        }
        if hint(old, "openWorldHint") == Some(false) && hint(new, "openWorldHint") != Some(false) {
            let loc = new.hints.get("openWorldHint").map_or(new.loc, |h| h.loc);
            let old_at = old.hints.get("openWorldHint").map_or(old.loc, |h| h.loc);
            self.behaviour_change(
                &rule::BREAKING_OPEN_WORLD,
                loc,
                old_at,
                format!("`{id}` now reaches outside its closed world (openWorldHint)"),
            );
        }
        let rank = |set: &ToolSet, tier: &str| set.tiers.iter().position(|t| t.id == tier);
        if let (Some(a), Some(b)) = (
            rank(old_set, &old.tier.value),
            rank(new_set, &new.tier.value),
        ) {
            if b > a {
                self.behaviour_change(
                    &rule::BREAKING_TIER_RAISED,
                    new.tier.loc,
                    old.tier.loc,
                    format!(
                        "`{id}` moved up from tier `{}` to `{}`: servers run at the old tier no longer offer it",
                        old.tier.value, new.tier.value
                    ),
                );
            }
        }
        let limit = |set: &ToolSet, t: &Tool| set.timeout_of(t);
        if let (Some(a), Some(b)) = (limit(old_set, old), limit(new_set, new)) {
            if b < a {
                let at = new.timeout_seconds.as_ref().map_or(new.loc, |t| t.loc);
                let old_at = old.timeout_seconds.as_ref().map_or(old.loc, |t| t.loc);
                self.behaviour_change(
                    &rule::BREAKING_TIME_LIMIT_LOWERED,
                    at,
                    old_at,
                    format!("the time limit of `{id}` fell from {a} s to {b} s: calls that took longer now fail"),
                );
            }
        }
    }

    fn behaviour_change(&mut self, r: &'static Rule, at: Loc, old_at: Loc, message: String) {
        self.emit(
            Diagnostic::at(r, at, message)
                .secondary((self.old_loc)(old_at), "before")
                .help("a change of behaviour is a new contract: give the new behaviour a new tool, or accept the change in the tool set's configuration"),
        );
    }

    /// Compares the subschemas at `op` (old) and `np` (new), `$ref`s followed.
    fn schema(
        &mut self,
        p: &Pair<'_>,
        old: &Value,
        op: &str,
        new: &Value,
        np: &str,
        seen: &mut BTreeSet<(String, String)>,
    ) {
        let (old, op) = resolve(&p.old.value, old, op);
        let (new, np) = resolve(&p.new.value, new, np);
        if !seen.insert((op.clone(), np.clone())) {
            return; // a recursive definition, compared already
        }
        let (Some(o), Some(n)) = (old.as_object(), new.as_object()) else {
            return;
        };
        self.path = dotted(p.side, &np);
        let at = p.new.locate(&np).unwrap_or(p.tool_loc);
        let what = describe(p.side, &np);
        let node = Nodes {
            o,
            op: &op,
            n,
            at,
            what: &what,
        };
        self.types(p, &node);
        self.enums(p, &node);
        if p.side == Side::Input {
            self.bounds(p, &node);
            if o.get("default").is_some() && o.get("default") != n.get("default") {
                let now = n.get("default").map_or("none".to_owned(), Value::to_string);
                self.push(
                    &rule::BREAKING_DEFAULT_CHANGED,
                    p.new.locate(&pointer_join(&np, "default")).unwrap_or(at),
                    p.old.locate(&pointer_join(&op, "default")),
                    format!("the default of {what} of `{}` changed to {now}: callers that leave it out now get something else", p.tool),
                    "keep the default, or tell the tool's callers",
                );
            }
        }
        self.properties(p, o, &op, n, &np, seen);
        for key in ["items", "additionalProperties"] {
            if let (Some(a), Some(b)) = (o.get(key), n.get(key)) {
                if a.is_object() && b.is_object() {
                    self.schema(
                        p,
                        a,
                        &pointer_join(&op, key),
                        b,
                        &pointer_join(&np, key),
                        seen,
                    );
                }
            }
        }
        self.path = dotted(p.side, &np);
        for key in ["anyOf", "oneOf"] {
            let a = o.get(key).and_then(Value::as_array);
            let b = n.get(key).and_then(Value::as_array);
            if let (Some(a), Some(b)) = (a, b) {
                if p.side == Side::Output && b.len() > a.len() {
                    self.push(
                        &rule::BREAKING_OUTPUT_UNION_WIDENED,
                        p.new.locate(&pointer_join(&np, key)).unwrap_or(at),
                        p.old.locate(&pointer_join(&op, key)),
                        format!("{what} of `{}` can now be one of {} shapes instead of {}: strict clients do not know the new ones", p.tool, b.len(), a.len()),
                        "clients that match every shape must be updated before they see the new one",
                    );
                }
                if a.len() == b.len() {
                    for (i, (x, y)) in a.iter().zip(b).enumerate() {
                        let (oi, ni) = (
                            pointer_join(&pointer_join(&op, key), &i.to_string()),
                            pointer_join(&pointer_join(&np, key), &i.to_string()),
                        );
                        self.schema(p, x, &oi, y, &ni, seen);
                    }
                }
            }
        }
    }

    fn types(&mut self, p: &Pair<'_>, node: &Nodes<'_>) {
        let Nodes { o, op, n, at, what } = *node;
        let (was, now) = (accepted(o), accepted(n));
        let lost: Vec<&str> = was.iter().filter(|t| !covers(&now, t)).copied().collect();
        let gained: Vec<&str> = now.iter().filter(|t| !covers(&was, t)).copied().collect();
        match p.side {
            Side::Input if !lost.is_empty() => self.push(
                &rule::BREAKING_INPUT_TYPE_NARROWED,
                at,
                p.old.locate(op),
                format!(
                    "{what} of `{}` no longer accepts {}: callers that send one now fail",
                    p.tool,
                    list(&lost)
                ),
                "accept the old types too, or add a new parameter for the new type",
            ),
            Side::Output if !gained.is_empty() => self.push(
                &rule::BREAKING_OUTPUT_TYPE_WIDENED,
                at,
                p.old.locate(op),
                format!(
                    "{what} of `{}` can now be {}: clients that expect the old type break",
                    p.tool,
                    list(&gained)
                ),
                "keep the output's type; return a new field for the new kind of value",
            ),
            _ => {}
        }
    }

    fn enums(&mut self, p: &Pair<'_>, node: &Nodes<'_>) {
        let Nodes { o, op, n, at, what } = *node;
        let values = |m: &Map<String, Value>| -> Option<Vec<Value>> {
            m.get("enum")
                .and_then(Value::as_array)
                .cloned()
                .or_else(|| m.get("const").map(|c| vec![c.clone()]))
        };
        let (was, now) = (values(o), values(n));
        match (p.side, was, now) {
            (Side::Input, Some(was), Some(now)) => {
                let gone: Vec<String> = was.iter().filter(|v| !now.contains(v)).map(Value::to_string).collect();
                if !gone.is_empty() {
                    self.push(
                        &rule::BREAKING_INPUT_ENUM_REMOVED,
                        at,
                        p.old.locate(op),
                        format!("{what} of `{}` no longer accepts {}: callers that send it now fail", p.tool, gone.join(", ")),
                        "keep accepting the old value (map it to the new one in the tool), or deprecate it first",
                    );
                }
            }
            (Side::Input, None, Some(_)) => self.push(
                &rule::BREAKING_INPUT_CONSTRAINT_TIGHTENED,
                at,
                p.old.locate(op),
                format!("{what} of `{}` is now limited to a list of values: other values callers sent now fail", p.tool),
                "accept what was accepted before",
            ),
            (Side::Output, Some(was), Some(now)) => {
                let new_values: Vec<String> = now.iter().filter(|v| !was.contains(v)).map(Value::to_string).collect();
                if !new_values.is_empty() {
                    self.push(
                        &rule::BREAKING_OUTPUT_ENUM_ADDED,
                        at,
                        p.old.locate(op),
                        format!("{what} of `{}` can now be {}: clients that match every value do not know it", p.tool, new_values.join(", ")),
                        "clients with an exhaustive match must be updated before they see the new value",
                    );
                }
            }
            (Side::Output, Some(_), None) => self.push(
                &rule::BREAKING_OUTPUT_TYPE_WIDENED,
                at,
                p.old.locate(op),
                format!("{what} of `{}` is no longer limited to a list of values: clients that expect one of them break", p.tool),
                "keep the list of values",
            ),
            _ => {}
        }
    }

    /// Input bounds: a minimum raised, a maximum lowered, a pattern or
    /// `multipleOf` added or changed, `uniqueItems` turned on.
    fn bounds(&mut self, p: &Pair<'_>, node: &Nodes<'_>) {
        let Nodes { o, op, n, at, what } = *node;
        let num = |m: &Map<String, Value>, k: &str| m.get(k).and_then(Value::as_f64);
        let mut tightened: Vec<String> = Vec::new();
        for k in [
            "minimum",
            "exclusiveMinimum",
            "minLength",
            "minItems",
            "minProperties",
        ] {
            match (num(o, k), num(n, k)) {
                (None, Some(b)) => tightened.push(format!("`{k}: {b}` added")),
                (Some(a), Some(b)) if b > a => {
                    tightened.push(format!("`{k}` raised from {a} to {b}"))
                }
                _ => {}
            }
        }
        for k in [
            "maximum",
            "exclusiveMaximum",
            "maxLength",
            "maxItems",
            "maxProperties",
        ] {
            match (num(o, k), num(n, k)) {
                (None, Some(b)) => tightened.push(format!("`{k}: {b}` added")),
                (Some(a), Some(b)) if b < a => {
                    tightened.push(format!("`{k}` lowered from {a} to {b}"))
                }
                _ => {}
            }
        }
        for k in ["pattern", "multipleOf"] {
            if n.get(k).is_some() && o.get(k) != n.get(k) {
                tightened.push(format!(
                    "`{k}` {}",
                    if o.get(k).is_some() {
                        "changed"
                    } else {
                        "added"
                    }
                ));
            }
        }
        if n.get("uniqueItems") == Some(&Value::Bool(true))
            && o.get("uniqueItems") != Some(&Value::Bool(true))
        {
            tightened.push("`uniqueItems` required".to_owned());
        }
        if !tightened.is_empty() {
            self.push(
                &rule::BREAKING_INPUT_CONSTRAINT_TIGHTENED,
                at,
                p.old.locate(op),
                format!(
                    "{what} of `{}` accepts less: {}; values callers sent before may now fail",
                    p.tool,
                    tightened.join(", ")
                ),
                "loosen the constraint again, or accept the change in the tool set's configuration",
            );
        }
    }

    fn properties(
        &mut self,
        p: &Pair<'_>,
        o: &Map<String, Value>,
        op: &str,
        n: &Map<String, Value>,
        np: &str,
        seen: &mut BTreeSet<(String, String)>,
    ) {
        let props = |m: &Map<String, Value>| {
            m.get("properties")
                .and_then(Value::as_object)
                .cloned()
                .unwrap_or_default()
        };
        let (was, now) = (props(o), props(n));
        let (req_was, req_now): (BTreeSet<&str>, BTreeSet<&str>) = (
            strings(o.get("required")).into_iter().collect(),
            strings(n.get("required")).into_iter().collect(),
        );
        let closed =
            |m: &Map<String, Value>| m.get("additionalProperties") == Some(&Value::Bool(false));
        let at_obj = p.new.locate(np).unwrap_or(p.tool_loc);
        let prop_ptr = |base: &str, k: &str| pointer_join(&pointer_join(base, "properties"), k);
        match p.side {
            Side::Input => {
                for k in &req_now {
                    if !req_was.contains(k) {
                        let at = p.new.locate(&prop_ptr(np, k)).unwrap_or(at_obj);
                        self.path = dotted(p.side, &prop_ptr(np, k));
                        let verb = if was.contains_key(*k) {
                            "became required"
                        } else {
                            "is new and required"
                        };
                        self.push(
                            &rule::BREAKING_INPUT_REQUIRED_ADDED,
                            at,
                            p.old.locate(op),
                            format!("{} of `{}` {verb}: callers that leave it out now fail", describe(p.side, &prop_ptr(np, k)), p.tool),
                            "make it optional (with a default), or accept the change in the tool set's configuration",
                        );
                    }
                }
                if closed(n) {
                    for k in was.keys().filter(|k| !now.contains_key(*k)) {
                        self.path = dotted(p.side, &prop_ptr(op, k));
                        self.push(
                            &rule::BREAKING_INPUT_REMOVED,
                            at_obj,
                            p.old.locate(&prop_ptr(op, k)),
                            format!("{} of `{}` was removed and unknown parameters are refused: callers that still send it now fail", describe(p.side, &prop_ptr(op, k)), p.tool),
                            "keep accepting the parameter (and ignore it), or allow unknown parameters",
                        );
                    }
                    if !closed(o) {
                        self.path = dotted(p.side, np);
                        self.push(
                            &rule::BREAKING_INPUT_CLOSED,
                            p.new.locate(&pointer_join(np, "additionalProperties")).unwrap_or(at_obj),
                            p.old.locate(op),
                            format!("{} of `{}` now refuses unknown parameters: callers that send extra ones now fail", describe(p.side, np), p.tool),
                            "leave `additionalProperties` as it was",
                        );
                    }
                }
            }
            Side::Output => {
                for k in was.keys() {
                    let ptr = prop_ptr(op, k);
                    self.path = dotted(p.side, &ptr);
                    if !now.contains_key(k) {
                        self.push(
                            &rule::BREAKING_OUTPUT_FIELD_REMOVED,
                            at_obj,
                            p.old.locate(&ptr),
                            format!("{} of `{}` was removed: clients that read it break", describe(p.side, &ptr), p.tool),
                            "keep returning the field (deprecated in its description) until clients have moved",
                        );
                    } else if req_was.contains(k.as_str()) && !req_now.contains(k.as_str()) {
                        self.push(
                            &rule::BREAKING_OUTPUT_FIELD_OPTIONAL,
                            p.new.locate(&prop_ptr(np, k)).unwrap_or(at_obj),
                            p.old.locate(&ptr),
                            format!("{} of `{}` is no longer always there: clients that rely on it break", describe(p.side, &prop_ptr(np, k)), p.tool),
                            "keep the field required",
                        );
                    }
                }
            }
        }
        for (k, a) in &was {
            if let Some(b) = now.get(k) {
                self.schema(p, a, &prop_ptr(op, k), b, &prop_ptr(np, k), seen);
            }
        }
    }
}

/// Today's date, `YYYY-MM-DD` (UTC), to compare with sunset dates.
fn today() -> String {
    let days = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs() / 86_400) as i64;
    // Howard Hinnant's days-to-civil algorithm.
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1_460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!("{y:04}-{m:02}-{d:02}")
}

/// `schema` (at `ptr` of `root`) with local `$ref`s followed, and where it is.
fn resolve<'v>(root: &'v Value, schema: &'v Value, ptr: &str) -> (&'v Value, String) {
    let mut schema = schema;
    let mut ptr = ptr.to_owned();
    for _ in 0..16 {
        let Some(r) = schema.get("$ref").and_then(Value::as_str) else {
            break;
        };
        let Some(target) = local_target(root, r) else {
            break;
        };
        schema = target;
        ptr = r.trim_start_matches('#').to_owned();
    }
    (schema, ptr)
}

/// The JSON types a schema accepts: its `type`, else those of its `enum`
/// or `const` values, else all of them.
fn accepted(m: &Map<String, Value>) -> BTreeSet<&str> {
    let t = types_of(m);
    if !t.is_empty() {
        return t;
    }
    let values: Vec<&Value> = match (m.get("enum"), m.get("const")) {
        (Some(Value::Array(a)), _) => a.iter().collect(),
        (_, Some(c)) => vec![c],
        _ => {
            return ["array", "boolean", "null", "number", "object", "string"]
                .into_iter()
                .collect();
        }
    };
    values
        .into_iter()
        .map(|v| match v {
            Value::Null => "null",
            Value::Bool(_) => "boolean",
            Value::Number(n) if n.is_f64() => "number",
            Value::Number(_) => "integer",
            Value::String(_) => "string",
            Value::Array(_) => "array",
            Value::Object(_) => "object",
        })
        .collect()
}

/// Whether a set of types accepts every value of type `t` (`number` covers `integer`).
fn covers(types: &BTreeSet<&str>, t: &str) -> bool {
    types.contains(t) || (t == "integer" && types.contains("number"))
}

/// `input.a.b`: a side and the properties on the way to `ptr`, as a
/// manifest's `breaking.ignore` names a part of a tool.
fn dotted(side: Side, ptr: &str) -> String {
    let mut out = side.word().to_owned();
    for name in property_names(ptr) {
        out.push('.');
        out.push_str(&name);
    }
    out
}

/// The property names on the way to `ptr` (`/properties/a/items/properties/b`: `a`, `b`).
fn property_names(ptr: &str) -> Vec<String> {
    ptr.split('/')
        .collect::<Vec<_>>()
        .windows(2)
        .filter(|w| w[0] == "properties")
        .map(|w| w[1].replace("~1", "/").replace("~0", "~"))
        .collect()
}

/// "the input", "input `a.b`" for a pointer into a side's schema.
fn describe(side: Side, ptr: &str) -> String {
    let names = property_names(ptr);
    if names.is_empty() {
        format!("the {}", side.word())
    } else {
        format!("{} `{}`", side.word(), names.join("."))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn types(v: Value) -> Vec<String> {
        let m = v.as_object().cloned().unwrap_or_default();
        accepted(&m).into_iter().map(str::to_owned).collect()
    }

    #[test]
    fn the_types_a_schema_accepts() {
        assert_eq!(
            types(json!({"type": ["string", "null"]})),
            ["null", "string"]
        );
        assert_eq!(
            types(json!({"enum": ["a", 1, null]})),
            ["integer", "null", "string"]
        );
        assert_eq!(types(json!({"const": 1.5})), ["number"]);
        assert_eq!(types(json!({})).len(), 6);
        assert!(covers(&["number"].into_iter().collect(), "integer"));
        assert!(!covers(&["integer"].into_iter().collect(), "number"));
        assert_eq!(
            describe(Side::Input, "/properties/a/properties/b~1c"),
            "input `a.b/c`"
        );
        assert_eq!(describe(Side::Output, ""), "the output");
    }
}
