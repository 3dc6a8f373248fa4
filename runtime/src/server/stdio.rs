//! The stdio transport: newline-delimited JSON-RPC, read on the calling
//! thread and written by a writer thread, so that responses go out as calls
//! finish, in any order, each matched to its request by id.

use std::io::{BufRead, BufReader, BufWriter, Read, Write};
use std::sync::Arc;
use std::sync::mpsc::{Receiver, Sender, TryRecvError, channel};

use serde_json::Value;

use super::core::{Execution, Server, Session};
use super::execution::Submitted;
use super::wire::{Outbox, Outgoing, error_response, plain_error};
use crate::error::ErrorCode;

/// What the writer thread is sent.
enum Line {
    Out(Outgoing),
    /// Input ended and every call was answered.
    Close,
}

struct StdioOutbox(Sender<Line>);

impl Outbox for StdioOutbox {
    fn send(&self, message: Outgoing) {
        let _ = self.0.send(Line::Out(message));
    }
}

impl Server {
    /// Serves newline-delimited JSON-RPC until end of input, then waits for
    /// the calls still running and returns. Calls run concurrently (see
    /// [`super::Execution`]); each response is written when its call
    /// finishes, progress notifications before it. When the pool's queue is
    /// full, reading pauses until there is room (the pipe pushes back on the
    /// client; nothing grows without bound). Lines longer than the
    /// request limit are refused without being held in memory. Output is
    /// flushed whenever no further message is waiting, so pipelined
    /// requests are answered in batches.
    pub fn serve<R: Read, W: Write + Send>(&self, input: R, output: W) -> std::io::Result<()> {
        let (tx, rx) = channel();
        let reply: Arc<dyn Outbox> = Arc::new(StdioOutbox(tx.clone()));
        let mut session = Session::with_notifications(reply.clone());
        // A full queue stops the reading: the pipe pushes back on the client.
        session.wait_when_full = true;
        // Calls on the pool may ask the client while this thread reads its
        // answers; inline calls would block the reading, so they cannot.
        let client = (self.execution != Execution::Inline).then(super::client::ClientRequests::new);
        session.client = client.clone();
        std::thread::scope(|scope| {
            let writer = scope.spawn(move || write_lines(&rx, output));
            let read = self.read_lines(input, &mut session, &reply);
            if let Some(c) = &client {
                c.close();
            }
            session.calls.wait_drained();
            let _ = tx.send(Line::Close);
            let written = writer
                .join()
                .unwrap_or_else(|_| Err(std::io::Error::other("the stdio writer panicked")));
            read.and(written)
        })
    }

    fn read_lines<R: Read>(
        &self,
        input: R,
        session: &mut Session,
        reply: &Arc<dyn Outbox>,
    ) -> std::io::Result<()> {
        let mut input = BufReader::with_capacity(64 * 1024, input);
        let mut line = Vec::new();
        loop {
            line.clear();
            let (n, too_long) = read_line_capped(&mut input, &mut line, self.max_request_bytes)?;
            if n == 0 {
                return Ok(());
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
                let out = serde_json::to_vec(&error_response(Value::Null, &e)).unwrap_or_default();
                reply.send(Outgoing::Response(out));
            } else if !request.is_empty() {
                if let Submitted::Answered(out) = self.submit(session, request, reply) {
                    reply.send(Outgoing::Response(out));
                }
            }
        }
    }
}

/// Writes each message as one line; flushes when no further one is waiting.
fn write_lines<W: Write>(rx: &Receiver<Line>, output: W) -> std::io::Result<()> {
    let mut output = BufWriter::with_capacity(64 * 1024, output);
    let mut next = rx.recv();
    loop {
        match next {
            Ok(Line::Out(message)) => {
                output.write_all(message.bytes())?;
                output.write_all(b"\n")?;
            }
            Ok(Line::Close) | Err(_) => return output.flush(),
        }
        next = match rx.try_recv() {
            Ok(line) => Ok(line),
            Err(TryRecvError::Empty) => {
                output.flush()?;
                // A response usually follows soon: spin before parking.
                let mut waiting = None;
                super::sync::spin_until(|| match rx.try_recv() {
                    Ok(line) => {
                        waiting = Some(line);
                        true
                    }
                    Err(_) => false,
                });
                match waiting {
                    Some(line) => Ok(line),
                    None => rx.recv(),
                }
            }
            Err(TryRecvError::Disconnected) => Err(std::sync::mpsc::RecvError),
        };
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
