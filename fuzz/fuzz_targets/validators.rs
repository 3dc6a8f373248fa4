//! The validators toolgen compiles against the `jsonschema` crate: any bytes
//! become a JSON value (built from the bytes, with the schema's own property
//! names and enum strings as the words it draws on, so that the fuzzer
//! reaches deep into each schema), checked against one schema of a shipped
//! tool by both. They must agree.
#![no_main]

use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use serde_json::{Map, Value};
use toolgen_runtime::server::Validity;

struct Schema {
    name: String,
    compiled: Validity,
    reference: jsonschema::Validator,
    /// Every string in the schema: property names, enum members, ...
    words: Vec<String>,
}

fn words(v: &Value, out: &mut Vec<String>) {
    match v {
        Value::String(s) => out.push(s.clone()),
        Value::Array(a) => a.iter().for_each(|x| words(x, out)),
        Value::Object(m) => {
            for (k, x) in m {
                out.push(k.clone());
                words(x, out);
            }
        }
        _ => {}
    }
}

fn schemas() -> &'static [Schema] {
    static ALL: OnceLock<Vec<Schema>> = OnceLock::new();
    ALL.get_or_init(|| {
        let tables = [
            toolgen_generated::editormcp::TOOLS,
            toolgen_generated::toolvault::TOOLS,
            toolgen_generated::ravedemo::TOOLS,
        ];
        let mut all = Vec::new();
        for info in tables.into_iter().flatten() {
            let sides = [
                ("input", Some(info.input_schema), info.input_valid),
                ("output", info.output_schema, info.output_valid),
            ];
            for (side, text, compiled) in sides {
                let (Some(text), Some(compiled)) = (text, compiled) else {
                    continue;
                };
                let Ok(schema) = serde_json::from_str::<Value>(text) else {
                    continue;
                };
                let Ok(reference) = jsonschema::options()
                    .with_draft(jsonschema::Draft::Draft202012)
                    .build(&schema)
                else {
                    continue;
                };
                let mut w = Vec::new();
                words(&schema, &mut w);
                w.sort();
                w.dedup();
                all.push(Schema {
                    name: format!("{} {side}", info.id),
                    compiled,
                    reference,
                    words: w,
                });
            }
        }
        all
    })
}

/// Reads the fuzzer's bytes as a recipe for a value.
struct Recipe<'a> {
    data: &'a [u8],
    words: &'a [String],
}

impl Recipe<'_> {
    fn byte(&mut self) -> u8 {
        match self.data.split_first() {
            Some((b, rest)) => {
                self.data = rest;
                *b
            }
            None => 0,
        }
    }

    fn word(&mut self) -> String {
        let b = usize::from(self.byte());
        match self.words.get(b % self.words.len().max(1)) {
            Some(w) if b < 200 => w.clone(),
            _ => {
                let n = usize::from(self.byte() % 6);
                let bytes: Vec<u8> = (0..n).map(|_| self.byte()).collect();
                String::from_utf8_lossy(&bytes).into_owned()
            }
        }
    }

    fn value(&mut self, depth: u32) -> Value {
        let op = self.byte() % if depth > 5 { 7 } else { 10 };
        match op {
            0 => Value::Null,
            1 => Value::Bool(self.byte() & 1 == 1),
            2 => Value::from(i64::from(self.byte() as i8)),
            3 => {
                let bytes: [u8; 8] = std::array::from_fn(|_| self.byte());
                Value::from(u64::from_le_bytes(bytes))
            }
            4 => {
                let bytes: [u8; 8] = std::array::from_fn(|_| self.byte());
                let f = f64::from_le_bytes(bytes);
                let specials = [0.5, -1.5, 2.0, 1e300, 9007199254740993.0, -0.0, 0.1];
                serde_json::Number::from_f64(f)
                    .map(Value::Number)
                    .unwrap_or_else(|| {
                        Value::from(specials[usize::from(bytes[0]) % specials.len()])
                    })
            }
            5 | 6 => Value::String(self.word()),
            7 => {
                let n = self.byte() % 5;
                Value::Array((0..n).map(|_| self.value(depth + 1)).collect())
            }
            _ => {
                let n = self.byte() % 6;
                let mut m = Map::new();
                for _ in 0..n {
                    let k = self.word();
                    let v = self.value(depth + 1);
                    m.insert(k, v);
                }
                Value::Object(m)
            }
        }
    }
}

fuzz_target!(|data: &[u8]| {
    let all = schemas();
    let Some((first, rest)) = data.split_first() else {
        return;
    };
    let Some(schema) = all.get(usize::from(*first) % all.len().max(1)) else {
        return;
    };
    let value = Recipe {
        data: rest,
        words: &schema.words,
    }
    .value(0);
    let expected = schema.reference.is_valid(&value);
    assert_eq!(
        (schema.compiled)(&toolgen_runtime::json::Json::from(&value)),
        expected,
        "{}: the compiled validator and the jsonschema crate disagree on {value}",
        schema.name
    );
});
