// What the TypeScript SDK client scripts share: a check that counts passes and stops at the
// first failure, and a server started with `--http 127.0.0.1:0`.
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';

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
