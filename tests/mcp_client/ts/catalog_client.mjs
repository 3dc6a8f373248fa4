// The official MCP TypeScript SDK's client (npm `@modelcontextprotocol/client`) lists and calls
// every tool of a tool set, as tests/mcp_client/catalog_client.py does with the Python SDK:
// over stdio and Streamable HTTP, in both protocol eras, the listing must be the catalog's
// (`generated/catalog/SET/tools.json`, member for member, but `execution`, which rmcp's `Tool`
// does not carry), and every tool, called with the sample call of its docs page, answers with a
// result (the SDK's client checks structured content against the output schema it listed).
//
// Run by `cargo xtask test` against the servers of this repository served by rmcp:
//   node catalog_client.mjs ROOT SET SERVER [ARGS...]
// Prints `N passed, 0 failed` and exits non-zero on the first failed check.
import { readFileSync } from 'node:fs';
import { isDeepStrictEqual } from 'node:util';

import { Client, LOG_LEVEL_META_KEY } from '@modelcontextprotocol/client';

import { MODERN, check, everyWay } from './common.mjs';

// What rmcp's `Tool` does not carry (docs/decisions.md).
const DROPPED = new Set(['execution']);

const [root, set, server, ...args] = process.argv.slice(2);
const catalog = JSON.parse(readFileSync(`${root}/generated/catalog/${set}/tools.json`, 'utf8')).tools;

/** The arguments of the sample call on the tool's docs page. */
function sampleArguments(tool) {
    const page = readFileSync(`${root}/generated/docs/src/${set}/${tool}.md`, 'utf8');
    for (const [, block] of page.matchAll(/```json\n([\s\S]*?)```/g)) {
        const call = JSON.parse(block);
        if (call.method === 'tools/call') {
            return call.params.arguments ?? {};
        }
    }
    check(false, `the docs page of ${tool} has a sample tools/call`);
}

/** What the tools ask, accepted: a URL, a form (defaults, else a value of each field). */
function answerForm(params) {
    if (params.mode === 'url') {
        return { action: 'accept' };
    }
    const content = {};
    for (const [k, v] of Object.entries(params.requestedSchema.properties ?? {})) {
        content[k] = v.default ?? (v.type === 'boolean' ? true : v.enum ? v.enum[0] : 'x');
    }
    return { action: 'accept', content };
}

async function session(transport, mode, where) {
    const era = `[${set}, ${where}, ${mode}] `;
    const options = { capabilities: { sampling: {}, elicitation: { form: {}, url: {} } } };
    if (mode === MODERN) {
        options.versionNegotiation = { mode: { pin: MODERN } };
    }
    const client = new Client({ name: 'toolgen-ts-catalog', version: '1.0.0' }, options);
    client.setRequestHandler('sampling/createMessage', async () => ({
        role: 'assistant', content: { type: 'text', text: 'yes' }, model: 'ts-test-model', stopReason: 'endTurn',
    }));
    client.setRequestHandler('elicitation/create', async request => answerForm(request.params));
    await client.connect(transport);
    const listed = new Map();
    let cursor;
    do {
        const page = await client.listTools(cursor ? { cursor } : {});
        for (const t of page.tools) {
            listed.set(t.name, t);
        }
        cursor = page.nextCursor;
    } while (cursor);
    const names = catalog.map(t => t.name).sort();
    check(isDeepStrictEqual([...listed.keys()].sort(), names), `${era}the catalog's tools listed: ${[...listed.keys()]}`);
    for (const tool of catalog) {
        const got = listed.get(tool.name);
        for (const key of new Set([...Object.keys(tool), ...Object.keys(got)])) {
            if (DROPPED.has(key)) {
                continue;
            }
            check(isDeepStrictEqual(got[key], tool[key]),
                `${era}${tool.name}: \`${key}\` as the catalog has it:\n  ${JSON.stringify(got[key])}\n  ${JSON.stringify(tool[key])}`);
        }
    }
    const meta = mode === MODERN ? { _meta: { [LOG_LEVEL_META_KEY]: 'debug' } } : {};
    for (const tool of catalog) {
        const result = await client.callTool({ name: tool.name, arguments: sampleArguments(tool.name), ...meta });
        check(Array.isArray(result.content), `${era}${tool.name} answers with a result`);
        if (!result.isError && result.structuredContent !== undefined) {
            check(isDeepStrictEqual(JSON.parse(result.content[0].text), result.structuredContent),
                `${era}${tool.name}: the text item mirrors the structured content`);
        }
    }
    await client.close();
}

await everyWay(server, args, session);
