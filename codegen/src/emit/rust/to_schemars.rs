//! A prepared schema as the schemars tree typify takes, read field by field.
//! `serde_json::from_value` gives the same tree, but schemars' six flattened
//! groups of keywords make serde buffer every key of every subschema and try
//! each group on them in turn. This reads each key once. Anything it is not sure to read as serde would (a value of
//! an unexpected type, an error to report) gives `None`, and the caller asks
//! serde, whose answer or error stands. A test holds the two to the same tree.

use schemars08::schema::{
    ArrayValidation, InstanceType, Metadata, NumberValidation, ObjectValidation, RootSchema,
    Schema, SchemaObject, SingleOrVec, StringValidation, SubschemaValidation,
};
use serde_json::{Map, Value};

/// The root schema (`$schema`, `definitions` or `$defs`, and the rest).
pub(super) fn root(v: &Value) -> Option<RootSchema> {
    let obj = v.as_object()?;
    // Both spellings at once: serde says which wins (or that neither may).
    if obj.contains_key("definitions") && obj.contains_key("$defs") {
        return None;
    }
    let meta_schema = match obj.get("$schema") {
        Some(s) => opt_string(s)?,
        None => None,
    };
    let definitions = match obj.get("definitions").or_else(|| obj.get("$defs")) {
        Some(d) => schema_map(d)?,
        None => schemars08::Map::new(),
    };
    let schema = object(obj, &["$schema", "definitions", "$defs"])?;
    Some(RootSchema {
        meta_schema,
        schema,
        definitions,
    })
}

/// A schema: `true`, `false` or an object.
fn schema(v: &Value) -> Option<Schema> {
    match v {
        Value::Bool(b) => Some(Schema::Bool(*b)),
        Value::Object(obj) => Some(Schema::Object(object(obj, &[])?)),
        _ => None,
    }
}

/// A boxed subschema where `null` means none, as serde reads an `Option`.
fn opt_schema(v: &Value) -> Option<Option<Box<Schema>>> {
    match v {
        Value::Null => Some(None),
        v => Some(Some(Box::new(schema(v)?))),
    }
}

fn opt_schemas(v: &Value) -> Option<Option<Vec<Schema>>> {
    match v {
        Value::Null => Some(None),
        Value::Array(items) => Some(Some(items.iter().map(schema).collect::<Option<_>>()?)),
        _ => None,
    }
}

fn schema_map(v: &Value) -> Option<schemars08::Map<String, Schema>> {
    v.as_object()?
        .iter()
        .map(|(k, v)| Some((k.clone(), schema(v)?)))
        .collect()
}

fn opt_string(v: &Value) -> Option<Option<String>> {
    match v {
        Value::Null => Some(None),
        Value::String(s) => Some(Some(s.clone())),
        _ => None,
    }
}

fn opt_f64(v: &Value) -> Option<Option<f64>> {
    match v {
        Value::Null => Some(None),
        Value::Number(n) => Some(Some(n.as_f64()?)),
        _ => None,
    }
}

fn opt_u32(v: &Value) -> Option<Option<u32>> {
    match v {
        Value::Null => Some(None),
        Value::Number(n) => Some(Some(u32::try_from(n.as_u64()?).ok()?)),
        _ => None,
    }
}

fn opt_bool(v: &Value) -> Option<Option<bool>> {
    match v {
        Value::Null => Some(None),
        Value::Bool(b) => Some(Some(*b)),
        _ => None,
    }
}

fn instance_type(v: &Value) -> Option<InstanceType> {
    Some(match v.as_str()? {
        "null" => InstanceType::Null,
        "boolean" => InstanceType::Boolean,
        "object" => InstanceType::Object,
        "array" => InstanceType::Array,
        "number" => InstanceType::Number,
        "string" => InstanceType::String,
        "integer" => InstanceType::Integer,
        _ => return None,
    })
}

/// A group of keywords as schemars keeps it: `None` when it says nothing.
fn group<T: Default + PartialEq>(g: T) -> Option<Box<T>> {
    (g != T::default()).then(|| Box::new(g))
}

/// An object schema, its keys in `skip` left to the caller.
fn object(obj: &Map<String, Value>, skip: &[&str]) -> Option<SchemaObject> {
    let mut s = SchemaObject::default();
    let mut md = Metadata::default();
    let mut sub = SubschemaValidation::default();
    let mut num = NumberValidation::default();
    let mut st = StringValidation::default();
    let mut arr = ArrayValidation::default();
    let mut ob = ObjectValidation::default();
    for (k, v) in obj {
        match k.as_str() {
            k if skip.contains(&k) => {}
            "$id" => md.id = opt_string(v)?,
            "title" => md.title = opt_string(v)?,
            "description" => md.description = opt_string(v)?,
            "default" => md.default = Some(v.clone()),
            "deprecated" => md.deprecated = v.as_bool()?,
            "readOnly" => md.read_only = v.as_bool()?,
            "writeOnly" => md.write_only = v.as_bool()?,
            "examples" => md.examples = v.as_array()?.clone(),
            "type" => {
                s.instance_type = match v {
                    Value::Null => None,
                    Value::Array(ts) => Some(SingleOrVec::Vec(
                        ts.iter().map(instance_type).collect::<Option<_>>()?,
                    )),
                    v => Some(SingleOrVec::Single(Box::new(instance_type(v)?))),
                }
            }
            "format" => s.format = opt_string(v)?,
            "enum" => {
                s.enum_values = match v {
                    Value::Null => None,
                    v => Some(v.as_array()?.clone()),
                }
            }
            "const" => s.const_value = Some(v.clone()),
            "allOf" => sub.all_of = opt_schemas(v)?,
            "anyOf" => sub.any_of = opt_schemas(v)?,
            "oneOf" => sub.one_of = opt_schemas(v)?,
            "not" => sub.not = opt_schema(v)?,
            "if" => sub.if_schema = opt_schema(v)?,
            "then" => sub.then_schema = opt_schema(v)?,
            "else" => sub.else_schema = opt_schema(v)?,
            "multipleOf" => num.multiple_of = opt_f64(v)?,
            "maximum" => num.maximum = opt_f64(v)?,
            "exclusiveMaximum" => num.exclusive_maximum = opt_f64(v)?,
            "minimum" => num.minimum = opt_f64(v)?,
            "exclusiveMinimum" => num.exclusive_minimum = opt_f64(v)?,
            "maxLength" => st.max_length = opt_u32(v)?,
            "minLength" => st.min_length = opt_u32(v)?,
            "pattern" => st.pattern = opt_string(v)?,
            "items" => {
                arr.items = match v {
                    Value::Null => None,
                    Value::Array(items) => Some(SingleOrVec::Vec(
                        items.iter().map(schema).collect::<Option<_>>()?,
                    )),
                    v => Some(SingleOrVec::Single(Box::new(schema(v)?))),
                }
            }
            "additionalItems" => arr.additional_items = opt_schema(v)?,
            "maxItems" => arr.max_items = opt_u32(v)?,
            "minItems" => arr.min_items = opt_u32(v)?,
            "uniqueItems" => arr.unique_items = opt_bool(v)?,
            "contains" => arr.contains = opt_schema(v)?,
            "maxProperties" => ob.max_properties = opt_u32(v)?,
            "minProperties" => ob.min_properties = opt_u32(v)?,
            "required" => {
                ob.required = v
                    .as_array()?
                    .iter()
                    .map(|r| r.as_str().map(str::to_owned))
                    .collect::<Option<_>>()?
            }
            "properties" => ob.properties = schema_map(v)?,
            "patternProperties" => ob.pattern_properties = schema_map(v)?,
            "additionalProperties" => ob.additional_properties = opt_schema(v)?,
            "propertyNames" => ob.property_names = opt_schema(v)?,
            "$ref" => s.reference = opt_string(v)?,
            _ => {
                s.extensions.insert(k.clone(), v.clone());
            }
        }
    }
    s.metadata = group(md);
    s.subschemas = group(sub);
    s.number = group(num);
    s.string = group(st);
    s.array = group(arr);
    s.object = group(ob);
    Some(s)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every object in `v`, itself included, depth first.
    fn objects<'a>(v: &'a Value, out: &mut Vec<&'a Value>) {
        match v {
            Value::Object(m) => {
                out.push(v);
                m.values().for_each(|v| objects(v, out));
            }
            Value::Array(a) => a.iter().for_each(|v| objects(v, out)),
            _ => {}
        }
    }

    /// What serde makes of `v`, and what this module does, are the same
    /// tree whenever this module reads it; counts the ones it reads.
    fn same(v: &Value, read: &mut usize) {
        let ours = root(v);
        if let Some(ours) = ours {
            *read += 1;
            let theirs: Result<RootSchema, _> = serde_json::from_value(v.clone());
            assert_eq!(theirs.ok().as_ref(), Some(&ours), "{v}");
        }
    }

    /// Keys of every kind with values of every kind, alone and together:
    /// nulls where serde reads `None`, and where it refuses; numbers too
    /// large or fractional for a `u32`; both spellings of the definitions.
    #[test]
    fn reads_what_serde_reads() {
        let keys = [
            "$id",
            "title",
            "description",
            "default",
            "deprecated",
            "readOnly",
            "writeOnly",
            "examples",
            "type",
            "format",
            "enum",
            "const",
            "allOf",
            "anyOf",
            "oneOf",
            "not",
            "if",
            "then",
            "else",
            "multipleOf",
            "maximum",
            "exclusiveMaximum",
            "minimum",
            "exclusiveMinimum",
            "maxLength",
            "minLength",
            "pattern",
            "items",
            "additionalItems",
            "maxItems",
            "minItems",
            "uniqueItems",
            "contains",
            "maxProperties",
            "minProperties",
            "required",
            "properties",
            "patternProperties",
            "additionalProperties",
            "propertyNames",
            "$ref",
            "$schema",
            "definitions",
            "$defs",
            "x-custom",
            "$comment",
        ];
        let values = [
            serde_json::json!(null),
            serde_json::json!(true),
            serde_json::json!(false),
            serde_json::json!(0),
            serde_json::json!(3),
            serde_json::json!(-1),
            serde_json::json!(2.5),
            serde_json::json!(4294967296u64),
            serde_json::json!("string"),
            serde_json::json!("integer"),
            serde_json::json!([]),
            serde_json::json!(["string", "null"]),
            serde_json::json!([{"type": "string"}, true]),
            serde_json::json!(["a", "a", "b"]),
            serde_json::json!({}),
            serde_json::json!({"type": "string", "title": null}),
            serde_json::json!({"a": {"type": "integer"}, "b": false}),
            serde_json::json!({"a": 1}),
        ];
        let mut read = 0;
        for k in keys {
            for v in &values {
                same(&serde_json::json!({ k: v }), &mut read);
                same(
                    &serde_json::json!({"type": "object", k: v, "z": 1}),
                    &mut read,
                );
                same(
                    &serde_json::json!({"properties": {"p": { k: v }}}),
                    &mut read,
                );
                same(
                    &serde_json::json!({"$defs": {"d": { k: v }}, "definitions": {}}),
                    &mut read,
                );
            }
        }
        assert!(read > 700, "{read} read");
    }

    /// Every object of every spec and fixture in the repository, read as a
    /// root schema (most are schemas; the rest must not be read otherwise).
    #[test]
    fn reads_every_object_of_the_repository_s_specs_as_serde_does() {
        let root_dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
        let mut files = Vec::new();
        for dir in ["tool-specs", "tests/fixtures"] {
            let mut stack = vec![root_dir.join(dir)];
            while let Some(d) = stack.pop() {
                for e in std::fs::read_dir(&d).into_iter().flatten().flatten() {
                    let p = e.path();
                    if p.is_dir() {
                        stack.push(p);
                    } else if p.extension().is_some_and(|x| x == "json") {
                        files.push(p);
                    }
                }
            }
        }
        assert!(files.len() > 50, "{} files", files.len());
        let (mut read, mut seen) = (0, 0);
        for f in files {
            let Ok(text) = std::fs::read_to_string(&f) else {
                continue;
            };
            let Ok(v) = serde_json::from_str::<Value>(&text) else {
                continue;
            };
            let mut all = Vec::new();
            objects(&v, &mut all);
            for o in all {
                seen += 1;
                same(o, &mut read);
            }
        }
        assert!(read * 2 > seen, "{read} of {seen} read");
    }
}
