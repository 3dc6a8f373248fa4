//! The stdio transport: newline-delimited JSON-RPC.

use std::io::{BufRead, BufReader, BufWriter, Read, Write};

use serde_json::Value;

use super::jsonrpc::error_response;
use super::{Server, Session, plain_error};
use crate::error::ErrorCode;

impl Server {
    /// Serves newline-delimited JSON-RPC until end of input. Lines longer than
    /// the request limit are refused without being held in memory. Responses
    /// are flushed when no further request is already waiting, so pipelined
    /// requests are answered in batches.
    pub fn serve<R: Read, W: Write>(&self, input: R, output: W) -> std::io::Result<()> {
        let mut input = BufReader::with_capacity(64 * 1024, input);
        let mut output = BufWriter::with_capacity(64 * 1024, output);
        let mut session = Session::default();
        let mut line = Vec::new();
        loop {
            line.clear();
            let (n, too_long) = read_line_capped(&mut input, &mut line, self.max_request_bytes)?;
            if n == 0 {
                return output.flush();
            }
            let request: &[u8] = trim_line(&line);
            if too_long {
                let e = plain_error(
                    ErrorCode::InvalidRequest,
                    format!(
                        "Invalid Request: request line is larger than the limit of {} bytes",
                        self.max_request_bytes
                    ),
                );
                let mut out =
                    serde_json::to_vec(&error_response(Value::Null, &e)).unwrap_or_default();
                out.push(b'\n');
                output.write_all(&out)?;
            } else if !request.is_empty() {
                if let Some(resp) = self.handle(&mut session, request) {
                    output.write_all(&resp)?;
                }
            }
            if input.buffer().is_empty() {
                output.flush()?;
            }
        }
    }
}

fn trim_line(line: &[u8]) -> &[u8] {
    let mut end = line.len();
    while end > 0 && matches!(line[end - 1], b'\n' | b'\r') {
        end -= 1;
    }
    &line[..end]
}

/// Reads one line into `buf`, keeping at most `cap` bytes; the rest of an
/// over-long line is read and discarded. Returns (bytes read, too long).
fn read_line_capped<R: BufRead>(
    input: &mut R,
    buf: &mut Vec<u8>,
    cap: usize,
) -> std::io::Result<(usize, bool)> {
    let mut total = 0;
    let mut too_long = false;
    loop {
        let available = input.fill_buf()?;
        if available.is_empty() {
            return Ok((total, too_long));
        }
        let (chunk, done) = match available.iter().position(|b| *b == b'\n') {
            Some(i) => (&available[..=i], true),
            None => (available, false),
        };
        let len = chunk.len();
        if !too_long {
            if buf.len() + len > cap + 2 {
                too_long = true;
                buf.clear();
            } else {
                buf.extend_from_slice(chunk);
            }
        }
        input.consume(len);
        total += len;
        if done {
            return Ok((total, too_long));
        }
    }
}
