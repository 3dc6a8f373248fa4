// What the TypeScript SDK client scripts share: a check that counts passes and stops at the
// first failure, and a server started with `--http 127.0.0.1:0`.
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';

import { StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';

export const MODERN = '2026-07-28';

let passes = 0;

export function check(ok, what) {
    if (!ok) {
        console.error(`FAILED: ${what}`);
        process.exit(1);
    }
    passes += 1;
}

export function passed() {
    return passes;
}

/** The server with `--http 127.0.0.1:0`, and the URL it says it serves at. */
export async function served(server, args) {
    const proc = spawn(server, [...args, '--http', '127.0.0.1:0'], { stdio: ['ignore', 'inherit', 'pipe'] });
    const lines = createInterface({ input: proc.stderr });
    const first = await new Promise(resolve => lines.once('line', resolve));
    lines.on('line', line => process.stderr.write(`${line}\n`));
    check(first.includes('serving MCP at http://'), `the server says where it listens: ${first}`);
    return { proc, url: first.split('serving MCP at ')[1].trim() };
}

/**
 * `session(transport, mode, where)` over stdio and over Streamable HTTP, in both protocol eras
 * (the 2025-11-25 handshake, `legacy`, and 2026-07-28); then the count of passed checks, and exit.
 */
export async function everyWay(server, args, session) {
    for (const mode of ['legacy', MODERN]) {
        await session(new StdioClientTransport({ command: server, args }), mode, 'stdio');
        const { proc, url } = await served(server, args);
        try {
            await session(new StreamableHTTPClientTransport(new URL(url)), mode, 'HTTP');
        } finally {
            proc.kill('SIGTERM');
        }
    }
    console.log(`${passed()} passed, 0 failed`);
    process.exit(0);
}
