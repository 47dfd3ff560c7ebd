import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startModelHost, type ModelHost } from '../../standins/model-host/server.ts';
import { STANDIN_MARK } from '../../standins/model-host/chat.ts';
import { postJson, quietLog } from './helpers.ts';

interface ChatBody {
  id: string;
  object: string;
  created: number;
  model: string;
  choices: { index: number; message: { role: string; content: string }; finish_reason: string }[];
  usage: { prompt_tokens: number; completion_tokens: number; total_tokens: number };
}

interface ErrorBody {
  error: { message: string; type: string; param: string | null; code: string | null };
}

/** Window of 1000 estimated tokens (4 characters each); with max_tokens 400 the messages may hold 2400 chars. */
const WINDOW = 1000;
const MAX_TOKENS = 400;
const SYSTEM = 'You summarise source files.';

let host: ModelHost;
before(async () => {
  host = await startModelHost({ chatContextTokens: WINDOW }, quietLog);
});
after(() => host.close());

function request(user: string, extra: Record<string, unknown> = {}) {
  return {
    model: 'dense',
    messages: [
      { role: 'system', content: SYSTEM },
      { role: 'user', content: user },
    ],
    temperature: 0.2,
    max_tokens: MAX_TOKENS,
    chat_template_kwargs: { enable_thinking: false },
    ...extra,
  };
}

const PROMPT = `File: src/config.ts
path: src/config.ts
language: typescript

\`\`\`
export interface AppConfig { port: number }
export function parseConfig(text: string): AppConfig { return JSON.parse(text); }
export const loadConfig = async (path: string) => parseConfig(await read(path));
class ConfigCache {}
\`\`\`

## Graph context
Imported by: src/server.ts, src/cli/main.ts
Imports: lib/read.ts
`;

describe('model host: chat completions', () => {
  it('returns an OpenAI chat.completion built from the prompt, marked as the stand-in', async () => {
    const res = await postJson(host.chatUrl, request(PROMPT));
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type') ?? '', /application\/json/);
    const body = res.body as ChatBody;
    assert.equal(body.object, 'chat.completion');
    assert.match(body.id, /^chatcmpl-/);
    assert.equal(body.model, 'dense');
    assert.ok(Number.isInteger(body.created));
    assert.equal(body.choices.length, 1);
    const choice = body.choices[0];
    assert.equal(choice?.index, 0);
    assert.equal(choice?.message.role, 'assistant');
    assert.equal(choice?.finish_reason, 'stop');
    const content = choice?.message.content ?? '';
    assert.ok(content.startsWith(STANDIN_MARK), content);
    assert.match(content, /src\/config\.ts is a typescript file/);
    assert.match(content, /defines AppConfig, parseConfig, loadConfig and ConfigCache/);
    assert.match(content, /connected to src\/server\.ts, src\/cli\/main\.ts and lib\/read\.ts/);
    assert.doesNotMatch(content, /<think>/);
    assert.equal(body.usage.prompt_tokens, Math.ceil((SYSTEM.length + PROMPT.length) / 4));
    assert.equal(body.usage.completion_tokens, Math.ceil(content.length / 4));
    assert.equal(body.usage.total_tokens, body.usage.prompt_tokens + body.usage.completion_tokens);
  });

  it('is deterministic: the same prompt gives the same paragraph', async () => {
    const a = (await postJson(host.chatUrl, request(PROMPT))).body as ChatBody;
    const b = (await postJson(host.chatUrl, request(PROMPT))).body as ChatBody;
    assert.equal(a.choices[0]?.message.content, b.choices[0]?.message.content);
    const c = (await postJson(host.chatUrl, request('path: other.py\n\ndef run(): pass'))).body as ChatBody;
    assert.notEqual(a.choices[0]?.message.content, c.choices[0]?.message.content);
  });

  it('answers the context-length 400 exactly when the prompt passes the window', async () => {
    const budgetChars = (WINDOW - MAX_TOKENS) * 4 - SYSTEM.length;
    const atLimit = await postJson(host.chatUrl, request('x'.repeat(budgetChars)));
    assert.equal(atLimit.status, 200, JSON.stringify(atLimit.body));
    const over = await postJson(host.chatUrl, request('x'.repeat(budgetChars + 1)));
    assert.equal(over.status, 400);
    const err = (over.body as ErrorBody).error;
    assert.equal(err.type, 'invalid_request_error');
    assert.equal(err.code, 'context_length_exceeded');
    assert.match(err.message, /maximum context length is 1000 tokens/);
    assert.match(err.message, /you requested 1001 tokens \(601 in the messages, 400 in the completion\)/);
  });

  it('lets a caller recover by scaling its budget 1.0, 0.5, 0.25', async () => {
    host.resetStats();
    const budget = 7000;
    const statuses: number[] = [];
    for (const scale of [1.0, 0.5, 0.25]) {
      const res = await postJson(host.chatUrl, request(PROMPT + 'y'.repeat(Math.floor(budget * scale))));
      statuses.push(res.status);
      if (res.status === 200) break;
    }
    assert.deepEqual(statuses, [400, 400, 200]);
    const s = host.stats().chat;
    assert.equal(s.contextLength, 2);
    assert.equal(s.ok, 1);
    assert.deepEqual(
      host.stats().log.map((l) => l.outcome),
      ['context_length', 'context_length', 'ok'],
    );
  });

  it('records the sampling fields it received', async () => {
    host.resetStats();
    await postJson(host.chatUrl, request(PROMPT));
    const [entry] = host.stats().log;
    assert.equal(entry?.endpoint, 'chat');
    assert.equal(entry?.temperature, 0.2);
    assert.equal(entry?.maxTokens, 400);
    assert.equal(entry?.enableThinking, false);
    assert.deepEqual(entry?.roles, ['system', 'user']);
    assert.equal(entry?.promptChars, SYSTEM.length + PROMPT.length);
  });

  it('thinks aloud unless chat_template_kwargs.enable_thinking is false, like the dense model', async () => {
    const res = await postJson(host.chatUrl, request(PROMPT, { chat_template_kwargs: undefined }));
    const content = (res.body as ChatBody).choices[0]?.message.content ?? '';
    assert.match(content, /^<think>[\s\S]*<\/think>\n\n\[stand-in model\]/);
  });

  it('stops at max_tokens with finish_reason "length"', async () => {
    const res = await postJson(host.chatUrl, request(PROMPT, { max_tokens: 5 }));
    const choice = (res.body as ChatBody).choices[0];
    assert.equal(choice?.finish_reason, 'length');
    assert.equal(choice?.message.content.length, 20);
  });

  it('accepts content given as text parts', async () => {
    const res = await postJson(host.chatUrl, {
      model: 'dense',
      messages: [{ role: 'user', content: [{ type: 'text', text: 'path: a.go\n\nfunc Run() {}' }] }],
      chat_template_kwargs: { enable_thinking: false },
    });
    assert.equal(res.status, 200);
    assert.match((res.body as ChatBody).choices[0]?.message.content ?? '', /a\.go is a file\. It defines Run\./);
  });

  it('refuses malformed requests with OpenAI-style 400 bodies', async () => {
    const cases: [unknown, string][] = [
      [{ model: 'dense' }, 'messages'],
      [{ model: 'dense', messages: [] }, 'messages'],
      [{ model: 'dense', messages: [{ role: 'wizard', content: 'x' }] }, 'messages'],
      [{ messages: [{ role: 'user', content: 'x' }] }, 'model'],
      [{ model: 'dense', messages: [{ role: 'user', content: 'x' }], temperature: 7 }, 'temperature'],
      [{ model: 'dense', messages: [{ role: 'user', content: 'x' }], max_tokens: 0 }, 'max_tokens'],
      [{ model: 'dense', messages: [{ role: 'user', content: 'x' }], stream: true }, 'stream'],
      [
        { model: 'dense', messages: [{ role: 'user', content: 'x' }], chat_template_kwargs: 'no' },
        'chat_template_kwargs',
      ],
    ];
    for (const [body, param] of cases) {
      const res = await postJson(host.chatUrl, body);
      assert.equal(res.status, 400, JSON.stringify(body));
      assert.equal((res.body as ErrorBody).error.param, param, JSON.stringify(body));
    }
  });

  it('serves only chat on the chat port', async () => {
    const res = await postJson(`${host.chatOrigin}/v1/embeddings`, { model: 'embeddings', input: 'x' });
    assert.equal(res.status, 404);
  });
});
