// The official MCP TypeScript SDK's client (npm `@modelcontextprotocol/client`, the SDK's v2)
// against the conformance tools, as tests/mcp_client/conformance_client.py does with the Python
// SDK: over stdio and Streamable HTTP, in both protocol eras (the 2025-11-25 handshake, where
// the server asks the client with requests of its own, and 2026-07-28, where it answers
// `input_required` and the SDK retries the call with the answers). In each of the four: an
// image, an embedded resource and log messages come back, and a sampling, a form elicitation
// (with defaults) and a URL elicitation complete round trips, the SDK's handlers answering.
//
// Run by `cargo xtask conformance`, once per backend of the tools (Rust, C#, R):
//   node conformance_client.mjs SERVER [ARGS...]
// Prints `N passed, 0 failed` and exits non-zero on the first failed check.
import { Client, LOG_LEVEL_META_KEY } from '@modelcontextprotocol/client';

import { MODERN, check, everyWay } from './common.mjs';


/** Every check, through one client connected over `transport`. */
async function session(transport, mode, where) {
    const era = `[${where}, ${mode}] `;
    const asked = [];
    const logged = [];
    const options = { capabilities: { sampling: {}, elicitation: { form: {}, url: {} } } };
    if (mode === MODERN) {
        options.versionNegotiation = { mode: { pin: MODERN } };
    }
    const client = new Client({ name: 'toolgen-ts-test', version: '1.0.0' }, options);
    client.setRequestHandler('sampling/createMessage', async request => {
        asked.push(request.params);
        const said = request.params.messages[0].content.text;
        return { role: 'assistant', content: { type: 'text', text: `echo: ${said}` },
            model: 'ts-test-model', stopReason: 'endTurn' };
    });
    client.setRequestHandler('elicitation/create', async request => {
        asked.push(request.params);
        if (request.params.mode === 'url') {
            return { action: 'accept' };
        }
        // Every default the form offers, taken as the answer.
        const content = {};
        for (const [k, v] of Object.entries(request.params.requestedSchema.properties)) {
            content[k] = v.default ?? 'x';
        }
        return { action: 'accept', content };
    });
    client.setNotificationHandler('notifications/message', n => {
        logged.push(n.params.data);
    });
    await client.connect(transport);
    const version = client.getNegotiatedProtocolVersion();
    check(version === (mode === MODERN ? MODERN : '2025-11-25'), `${era}the protocol version: ${version}`);
    const meta = mode === MODERN ? { _meta: { [LOG_LEVEL_META_KEY]: 'debug' } } : {};
    const call = (name, args) => client.callTool({ name, arguments: args, ...meta });

    const image = await call('test_image_content', {});
    check(image.content[0].type === 'image' && image.content[0].mimeType === 'image/png',
        `${era}an image: ${JSON.stringify(image.content)}`);
    check(Buffer.from(image.content[0].data, 'base64').subarray(0, 4).toString('latin1') === '\x89PNG',
        `${era}the image is a PNG`);
    const embedded = await call('test_embedded_resource', {});
    const resource = embedded.content[0].resource;
    check(embedded.content[0].type === 'resource' && resource.uri === 'test://embedded-resource'
        && resource.text === 'This is an embedded resource content.',
        `${era}an embedded resource: ${JSON.stringify(embedded.content)}`);
    const logging = await call('test_tool_with_logging', {});
    check(!logging.isError, `${era}the logging tool: ${JSON.stringify(logging.content)}`);
    const said = JSON.stringify(logged);
    check(said === JSON.stringify(['Tool execution started', 'Tool processing data', 'Tool execution completed']),
        `${era}its log messages arrive, in order: ${said}`);
    const sampled = await call('test_sampling', { prompt: 'Name a colour.' });
    check(!sampled.isError, `${era}a sampling round trip: ${JSON.stringify(sampled.content)}`);
    check(sampled.content[0].text === 'LLM response: echo: Name a colour.',
        `${era}the model's answer comes back: ${sampled.content[0].text}`);
    check(asked.length === 1 && asked[0].maxTokens === 100,
        `${era}the request as the tool made it: ${JSON.stringify(asked)}`);
    const form = await call('test_elicitation_sep1034_defaults', {});
    check(!form.isError, `${era}an elicitation round trip: ${JSON.stringify(form.content)}`);
    const text = form.content[0].text;
    check(text.includes('action=accept') && text.includes('John Doe') && text.includes('95.5'),
        `${era}the user's answer comes back: ${text}`);
    const page = await call('test_elicitation_url', { url: 'https://example.com/authorize' });
    check(!page.isError && page.content[0].text.includes('action=accept'),
        `${era}a URL-mode elicitation round trip: ${JSON.stringify(page.content)}`);
    const last = asked[asked.length - 1];
    // The SDK's 2026-era schema has no `elicitationId` (the draft removed it); it drops the field.
    const id = mode === MODERN ? undefined : 'conformance-url-1';
    check(last.url === 'https://example.com/authorize' && last.elicitationId === id,
        `${era}the client is sent to the page: ${JSON.stringify(last)}`);
    check(asked.length === 3, `${era}each question asked once: ${asked.length}`);
    await client.close();
}

const [server, ...args] = process.argv.slice(2);
await everyWay(server, args, session);
