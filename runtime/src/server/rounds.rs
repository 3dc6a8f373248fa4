//! Asking the client under MCP 2026-07-28, where a server sends the client
//! no requests of its own: a call that needs the user or the client's model
//! answers with an `InputRequiredResult` (SEP-2322) naming what it needs
//! (`inputRequests`, keyed) and an opaque `requestState`; the client asks,
//! then sends the same call again with `inputResponses` and the state.
//!
//! The handler runs again from the start on each retry (a replay): its nth
//! question gets the nth answer the state holds when the question is the
//! same; the first one the state has no answer for is asked, the handler
//! told [`Elicited::InputRequired`](super::client::Elicited::InputRequired)
//! to return at once, and whatever it returns is replaced by the
//! `InputRequiredResult`. So a handler is written as for a connection that
//! asks and waits; it must only ask the same questions, in the same order,
//! for the same arguments and answers (as any handler that does not draw
//! at random does).
//!
//! The state is the client's own answers and the questions pending, as
//! base64url JSON: nothing in it is secret or trusted beyond what the
//! client could answer anyway (see docs/decisions.md).

use std::sync::Mutex;
use std::time::Duration;

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use serde_json::{Map, Value, json};

use super::client::{Asked, Asks, Capabilities};
use super::sync::lock;
use super::wire::{plain_error, stamp_result, write_json, write_response};
use crate::error::{ErrorCode, ToolError};

/// The questions of one 2026-07-28 call: the answers the client sent, and
/// the questions this run asked that have none yet.
pub(crate) struct Rounds {
    tool: String,
    can: Capabilities,
    /// (question, answer), in the order the handler asked them.
    answered: Vec<(Value, Value)>,
    run: Mutex<Run>,
}

#[derive(Default)]
struct Run {
    /// How many questions this run asked so far.
    asked: usize,
    /// The answers this run used, a prefix of `answered`.
    used: usize,
    /// Questions without an answer, by key.
    pending: Vec<(String, Value)>,
}

impl Rounds {
    /// The questions of a 2026-07-28 `tools/call` of `tool` (its `params`,
    /// the client's `capabilities` from their `_meta`): `None` when the
    /// client can be asked nothing (it declared neither elicitation nor
    /// sampling), an invalid-params error when its `requestState` is not one
    /// this server gave for `tool` or an answer the state waits for is
    /// missing from `inputResponses`.
    pub(crate) fn of(
        tool: &str,
        capabilities: Option<&Value>,
        params: &Map<String, Value>,
    ) -> Result<Option<Rounds>, ToolError> {
        let can = Capabilities::of(capabilities);
        if !(can.form || can.url || can.sampling) {
            return Ok(None);
        }
        let answered = match params.get("requestState") {
            None | Some(Value::Null) => Vec::new(),
            Some(state) => answers(tool, state, params.get("inputResponses"))?,
        };
        Ok(Some(Rounds {
            tool: tool.to_owned(),
            can,
            answered,
            run: Mutex::new(Run::default()),
        }))
    }
}

impl Asks for Rounds {
    fn can(&self) -> Capabilities {
        self.can
    }

    /// The answer to `question`, if the client gave it; else the question
    /// is asked when the call is answered.
    fn ask(&self, question: Value, _limit: Duration) -> Asked {
        let mut run = lock(&self.run);
        let n = run.asked;
        run.asked += 1;
        // Answers are used in order while each fits its question: after one
        // that does not, the answers that follow were given to another run.
        if run.used == n {
            if let Some((q, a)) = self.answered.get(n) {
                if *q == question {
                    run.used += 1;
                    return Asked::Answer(a.clone());
                }
            }
        }
        run.pending.push((format!("ask-{n}"), question));
        Asked::Pending
    }
}

impl Rounds {
    /// The response to the call when this run asked a question the client
    /// has not answered: an `InputRequiredResult` with the questions and the
    /// state to send back (`stamp`: the server's identity for `_meta`).
    pub(crate) fn input_required(&self, id: &Value, stamp: Option<&[u8]>) -> Option<Vec<u8>> {
        let run = lock(&self.run);
        if run.pending.is_empty() {
            return None;
        }
        let answered: Vec<Value> = self.answered[..run.used]
            .iter()
            .map(|(q, a)| json!([q, a]))
            .collect();
        let asking: Map<String, Value> = run.pending.iter().cloned().collect();
        let state = json!({"tool": self.tool, "answered": answered, "asking": asking});
        let mut text = Vec::new();
        write_json(&mut text, &state);
        let mut result = json!({
            "resultType": "input_required",
            "inputRequests": asking,
            "requestState": URL_SAFE_NO_PAD.encode(text),
        });
        if let Some(stamp) = stamp {
            stamp_result(&mut result, stamp);
        }
        let mut out = Vec::with_capacity(512);
        write_response(&mut out, id, |out| write_json(out, &result));
        Some(out)
    }
}

/// The answers a retry of `tool` carries: those its state holds, then the
/// client's `responses` to the questions the state was waiting for.
fn answers(
    tool: &str,
    state: &Value,
    responses: Option<&Value>,
) -> Result<Vec<(Value, Value)>, ToolError> {
    let invalid = |why: &str| {
        plain_error(
            ErrorCode::InvalidParams,
            format!(
                "Invalid params: {why}; send `requestState` back exactly as the \
                 InputRequiredResult of this call gave it, with an answer in \
                 `inputResponses` for each of its `inputRequests`"
            ),
        )
        .for_tool(tool)
    };
    let decoded = state
        .as_str()
        .and_then(|s| URL_SAFE_NO_PAD.decode(s).ok())
        .and_then(|bytes| serde_json::from_slice::<Value>(&bytes).ok())
        .ok_or_else(|| invalid("`requestState` is not one this server gave"))?;
    let pairs = decoded["answered"].as_array().and_then(|a| {
        a.iter()
            .map(|p| match p.as_array().map(Vec::as_slice) {
                Some([q, a]) => Some((q.clone(), a.clone())),
                _ => None,
            })
            .collect::<Option<Vec<_>>>()
    });
    let (Some(mut answered), Some(asking)) = (pairs, decoded["asking"].as_object()) else {
        return Err(invalid("`requestState` is not one this server gave"));
    };
    if decoded["tool"] != tool {
        return Err(invalid(&format!(
            "`requestState` was given for a call of {}, not of {tool}",
            decoded["tool"]
        )));
    }
    for (key, question) in asking {
        let answer = responses
            .and_then(|r| r.get(key))
            .filter(|a| a.is_object())
            .ok_or_else(|| invalid(&format!("`inputResponses` has no answer for `{key}`")))?;
        answered.push((question.clone(), answer.clone()));
    }
    Ok(answered)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::server::client::{Elicited, Sampled, Sampling};

    const T: Duration = Duration::ZERO;

    fn params(extra: Value) -> Map<String, Value> {
        match extra {
            Value::Object(m) => m,
            _ => Map::new(),
        }
    }

    fn read(params: &Map<String, Value>) -> Result<Option<Rounds>, ToolError> {
        let can = json!({"elicitation": {}, "sampling": {}});
        Rounds::of("t", Some(&can), params)
    }

    fn of(params: &Map<String, Value>) -> Rounds {
        match read(params) {
            Ok(Some(r)) => r,
            Ok(None) => panic!("no rounds"),
            Err(e) => panic!("refused: {e:?}"),
        }
    }

    fn refused(params: &Map<String, Value>) -> ToolError {
        match read(params) {
            Err(e) => e,
            Ok(_) => panic!("accepted: {params:?}"),
        }
    }

    /// The result of the response `bytes`, `null` when there is none.
    fn result_of(bytes: Option<Vec<u8>>) -> Value {
        let v: Value = serde_json::from_slice(&bytes.unwrap_or_default()).unwrap_or_default();
        v["result"].clone()
    }

    #[test]
    fn asks_then_replays_the_answer() {
        let first = of(&params(json!({})));
        assert_eq!(first.elicit("Name?", json!({}), T), Elicited::InputRequired);
        let r = result_of(first.input_required(&json!(1), None));
        assert_eq!(r["resultType"], "input_required");
        assert_eq!(r["inputRequests"]["ask-0"]["method"], "elicitation/create");
        let retry = params(json!({
            "requestState": r["requestState"],
            "inputResponses": {"ask-0": {"action": "accept", "content": {"name": "Ada"}}},
        }));
        let second = of(&retry);
        assert_eq!(
            second.elicit("Name?", json!({}), T),
            Elicited::Accepted(json!({"name": "Ada"}))
        );
        // A second question, asked after the first answer: the state keeps both.
        let sampling = Sampling::ask("Why?", 10);
        assert_eq!(second.sample(&sampling, T), Sampled::InputRequired);
        let r = result_of(second.input_required(&json!(2), None));
        assert_eq!(
            r["inputRequests"]["ask-1"]["method"],
            "sampling/createMessage"
        );
        let retry = params(json!({
            "requestState": r["requestState"],
            "inputResponses": {"ask-1": {"role": "assistant", "model": "m",
                "content": {"type": "text", "text": "Because."}}},
        }));
        let third = of(&retry);
        assert!(matches!(
            third.elicit("Name?", json!({}), T),
            Elicited::Accepted(_)
        ));
        assert!(matches!(
            third.sample(&sampling, T),
            Sampled::Answered { .. }
        ));
        assert!(third.input_required(&json!(3), None).is_none());
    }

    #[test]
    fn a_different_question_is_asked_anew() {
        let first = of(&params(json!({})));
        first.elicit("A?", json!({}), T);
        let r = result_of(first.input_required(&json!(1), None));
        let retry = params(json!({
            "requestState": r["requestState"],
            "inputResponses": {"ask-0": {"action": "decline"}},
        }));
        let second = of(&retry);
        assert_eq!(second.elicit("B?", json!({}), T), Elicited::InputRequired);
        let r = result_of(second.input_required(&json!(2), None));
        assert_eq!(r["inputRequests"]["ask-0"]["params"]["message"], "B?");
    }

    #[test]
    fn refuses_a_state_it_did_not_give_or_a_missing_answer() {
        for bad in [
            json!("not base64!"),
            json!(7),
            json!(URL_SAFE_NO_PAD.encode("[1]")),
        ] {
            let e = refused(&params(json!({"requestState": bad})));
            assert_eq!(e.code, ErrorCode::InvalidParams, "{e:?}");
        }
        let first = of(&params(json!({})));
        first.elicit("A?", json!({}), T);
        let r = result_of(first.input_required(&json!(1), None));
        let e = refused(&params(json!({"requestState": r["requestState"]})));
        assert!(e.message.contains("no answer for `ask-0`"), "{}", e.message);
    }

    #[test]
    fn a_client_that_declared_nothing_is_asked_nothing() {
        let nothing = json!({});
        assert!(matches!(
            Rounds::of("t", Some(&nothing), &Map::new()),
            Ok(None)
        ));
        assert!(matches!(Rounds::of("t", None, &Map::new()), Ok(None)));
    }
}
