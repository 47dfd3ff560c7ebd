import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startModelHost, type ModelHostStats } from '../../standins/model-host/server.ts';
import { postJson, runEntry, quietLog } from './helpers.ts';

const EMBED = { model: 'embeddings', input: 'search_query: x' };
const CHAT = {
  model: 'dense',
  messages: [{ role: 'user', content: 'hi' }],
  chat_template_kwargs: { enable_thinking: false },
};

describe('model host: bearer check', () => {
  it('requires the LLM_API_KEY bearer on both model endpoints when a key is set; /health stays open', async () => {
    const host = await startModelHost({ apiKey: 'k-123' }, quietLog);
    try {
      for (const [url, body] of [
        [host.embeddingUrl, EMBED],
        [host.chatUrl, CHAT],
      ] as const) {
        const none = await postJson(url, body);
        assert.equal(none.status, 401);
        assert.deepEqual((none.body as { error: { code: string } }).error.code, 'invalid_api_key');
        assert.equal((await postJson(url, body, { authorization: 'Bearer k-12' })).status, 401);
        assert.equal((await postJson(url, body, { authorization: 'Basic k-123' })).status, 401);
        assert.equal((await postJson(url, body, { authorization: 'Bearer k-123' })).status, 200);
      }
      assert.equal((await fetch(`${host.embeddingOrigin}/health`)).status, 200);
      assert.equal((await fetch(`${host.embeddingOrigin}/_standin/stats`)).status, 401);
      const s = host.stats();
      assert.equal(s.embeddings.unauthorized, 3);
      assert.equal(s.chat.unauthorized, 3);
      assert.equal(s.embeddings.ok, 1);
    } finally {
      await host.close();
    }
  });

  it('sends no challenge when no key is set', async () => {
    const host = await startModelHost({ apiKey: '' }, quietLog);
    try {
      assert.equal((await postJson(host.embeddingUrl, EMBED)).status, 200);
      assert.equal((await postJson(host.embeddingUrl, EMBED, { authorization: 'Bearer anything' })).status, 200);
    } finally {
      await host.close();
    }
  });
});

describe('model host: fault knobs and counters', () => {
  it('fails every request with an OpenAI-style 503 at failure rate 1, and none at 0', async () => {
    const host = await startModelHost({ faults: { latencyMs: 0, failureRate: 1, failureMode: 'status' } }, quietLog);
    try {
      const res = await postJson(host.embeddingUrl, EMBED);
      assert.equal(res.status, 503);
      assert.equal((res.body as { error: { type: string } }).error.type, 'server_error');
      assert.equal((await postJson(host.chatUrl, CHAT)).status, 503);
      host.setFaults({ failureRate: 0 }, 'chat');
      assert.equal((await postJson(host.chatUrl, CHAT)).status, 200);
      assert.equal((await postJson(host.embeddingUrl, EMBED)).status, 503);
      assert.equal(host.stats().embeddings.injectedFailures, 2);
      assert.equal(host.stats().chat.injectedFailures, 1);
    } finally {
      await host.close();
    }
  });

  it('fails about the configured share of requests, in a pattern that repeats for a seed', async () => {
    const pattern = async () => {
      const host = await startModelHost(
        { failureSeed: 7, faults: { latencyMs: 0, failureRate: 0.3, failureMode: 'status' } },
        quietLog,
      );
      try {
        const out: number[] = [];
        for (let i = 0; i < 60; i++) out.push((await postJson(host.embeddingUrl, EMBED)).status);
        return out;
      } finally {
        await host.close();
      }
    };
    const a = await pattern();
    const failures = a.filter((s) => s === 503).length;
    assert.ok(failures >= 8 && failures <= 30, `failures ${failures}/60`);
    assert.deepEqual(await pattern(), a);
  });

  it('drops the connection without a response in reset mode', async () => {
    const host = await startModelHost({ faults: { latencyMs: 0, failureRate: 1, failureMode: 'reset' } }, quietLog);
    try {
      await assert.rejects(postJson(host.chatUrl, CHAT), TypeError);
      assert.equal(host.stats().chat.injectedFailures, 1);
    } finally {
      await host.close();
    }
  });

  it('adds the configured latency, changeable over HTTP at run time', async () => {
    const host = await startModelHost({}, quietLog);
    try {
      const put = await fetch(`${host.chatOrigin}/_standin/faults`, {
        method: 'PUT',
        body: JSON.stringify({ endpoint: 'chat', latencyMs: 200 }),
      });
      assert.equal(put.status, 200);
      let t = performance.now();
      assert.equal((await postJson(host.chatUrl, CHAT)).status, 200);
      assert.ok(performance.now() - t >= 195, `chat took ${performance.now() - t} ms`);
      t = performance.now();
      assert.equal((await postJson(host.embeddingUrl, EMBED)).status, 200);
      assert.ok(performance.now() - t < 150, 'embeddings unaffected');
      const bad = await fetch(`${host.chatOrigin}/_standin/faults`, {
        method: 'PUT',
        body: JSON.stringify({ failureRate: 2 }),
      });
      assert.equal(bad.status, 400);
    } finally {
      await host.close();
    }
  });

  it('exposes its counters and request log over HTTP and resets them', async () => {
    const host = await startModelHost({}, quietLog);
    try {
      await postJson(host.embeddingUrl, { model: 'embeddings', input: ['search_document: a', 'b'] });
      await postJson(host.chatUrl, { model: 'dense', messages: [] });
      const stats = (await (await fetch(`${host.chatOrigin}/_standin/stats`)).json()) as ModelHostStats;
      assert.equal(stats.embeddings.requests, 1);
      assert.equal(stats.embeddings.inputs, 2);
      assert.equal(stats.embeddings.unprefixedInputs, 1);
      assert.equal(stats.chat.badRequest, 1);
      assert.deepEqual(
        stats.log.map((l) => [l.endpoint, l.status, l.outcome]),
        [
          ['embeddings', 200, 'ok'],
          ['chat', 400, 'bad_request'],
        ],
      );
      assert.equal((await fetch(`${host.embeddingOrigin}/_standin/reset`, { method: 'POST' })).status, 200);
      assert.equal(host.stats().log.length, 0);
    } finally {
      await host.close();
    }
  });

  it('serves both APIs from one listener when both ports are the same', async () => {
    const probe = await startModelHost({}, quietLog);
    const port = Number(new URL(probe.embeddingOrigin).port);
    await probe.close();
    const host = await startModelHost({ embeddingPort: port, chatPort: port }, quietLog);
    try {
      assert.equal(host.embeddingOrigin, host.chatOrigin);
      assert.equal((await postJson(host.embeddingUrl, EMBED)).status, 200);
      assert.equal((await postJson(host.chatUrl, CHAT)).status, 200);
    } finally {
      await host.close();
    }
  });
});

describe('model host: entry point', () => {
  it('starts from environment variables, logs its URLs, serves, and exits 0 on SIGTERM', async () => {
    const proc = runEntry('standins/model-host/main.ts', {
      MODEL_HOST_EMBEDDINGS_PORT: '0',
      MODEL_HOST_CHAT_PORT: '0',
      EMBEDDING_DIM: '32',
      LLM_API_KEY: 'very-secret-key',
    });
    try {
      const started = await proc.waitFor('model_host_started');
      const embeddingUrl = String(started.embedding_url);
      const chatUrl = String(started.chat_url);
      assert.match(embeddingUrl, /^http:\/\/127\.0\.0\.1:\d+\/v1\/embeddings$/);
      assert.match(chatUrl, /^http:\/\/127\.0\.0\.1:\d+\/v1\/chat\/completions$/);
      const res = await postJson(embeddingUrl, EMBED, { authorization: 'Bearer very-secret-key' });
      assert.equal((res.body as { data: { embedding: number[] }[] }).data[0]?.embedding.length, 32);
      assert.equal((await postJson(chatUrl, CHAT, { authorization: 'Bearer very-secret-key' })).status, 200);
    } finally {
      assert.equal(await proc.stop(), 0);
    }
    assert.ok(proc.lines.some((l) => l.event === 'model_host_stopped'));
    assert.ok(!JSON.stringify(proc.lines).includes('very-secret-key'), 'the API key is never logged');
  });

  it('refuses to start on a bad variable and names it', async () => {
    const proc = runEntry('standins/model-host/main.ts', { MODEL_HOST_EMBEDDINGS_PORT: '0', EMBEDDING_DIM: 'lots' });
    const code = await proc.exited;
    assert.notEqual(code, 0);
    const failed = proc.lines.find((l) => l.event === 'model_host_start_failed');
    assert.match(JSON.stringify(failed), /EMBEDDING_DIM/);
  });
});
