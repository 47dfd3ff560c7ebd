/**
 * The dense chat model call of the summary pipeline (spec, Limits): POST DENSE_LLM_URL with the model, a system and
 * a user message, temperature 0.2, max_tokens SUMMARY_MAX_TOKENS and chat_template_kwargs.enable_thinking=false;
 * bearer LLM_API_KEY when set. Never throws: the outcome says whether a failure was a context-window overflow (the
 * pipeline then retries with a smaller budget) or anything else.
 */
export interface DenseClientOptions {
  url: string;
  model: string;
  apiKey: string | undefined;
  maxTokens: number;
  timeoutMs: number;
}

export type DenseOutcome =
  { ok: true; text: string } | { ok: false; contextOverflow: boolean; status: number | null; message: string };

export interface DenseClient {
  readonly model: string;
  /** The cap of one call, ms. */
  readonly timeoutMs: number;
  complete(system: string, user: string): Promise<DenseOutcome>;
}

const CONTEXT_ERROR =
  /context[ _-]?(length|window)|maximum context|context_length_exceeded|too many tokens|prompt is too long|reduce the length/i;

/** Strips a reasoning block some chat templates emit even when asked not to think. */
function stripThinking(text: string): string {
  return text.replace(/^\s*<think>[\s\S]*?<\/think>\s*/i, '').trim();
}

export function createDenseClient(o: DenseClientOptions): DenseClient {
  return {
    model: o.model,
    timeoutMs: o.timeoutMs,
    async complete(system, user) {
      const headers: Record<string, string> = { 'content-type': 'application/json' };
      if (o.apiKey) headers.authorization = `Bearer ${o.apiKey}`;
      let res: Response;
      try {
        res = await fetch(o.url, {
          method: 'POST',
          headers,
          body: JSON.stringify({
            model: o.model,
            messages: [
              { role: 'system', content: system },
              { role: 'user', content: user },
            ],
            temperature: 0.2,
            max_tokens: o.maxTokens,
            chat_template_kwargs: { enable_thinking: false },
          }),
          signal: AbortSignal.timeout(o.timeoutMs),
        });
      } catch (err) {
        return {
          ok: false,
          contextOverflow: false,
          status: null,
          message: `cannot reach the dense model: ${err instanceof Error ? err.message : String(err)}`,
        };
      }
      const text = await res.text();
      if (!res.ok) {
        return {
          ok: false,
          contextOverflow: res.status === 400 && CONTEXT_ERROR.test(text),
          status: res.status,
          message: `dense model answered ${res.status}: ${text.slice(0, 300)}`,
        };
      }
      let content: unknown;
      try {
        const body = JSON.parse(text) as { choices?: Array<{ message?: { content?: unknown } }> };
        content = body.choices?.[0]?.message?.content;
      } catch {
        return { ok: false, contextOverflow: false, status: res.status, message: 'dense model returned invalid JSON' };
      }
      const summary = typeof content === 'string' ? stripThinking(content) : '';
      if (summary === '') {
        return { ok: false, contextOverflow: false, status: res.status, message: 'dense model returned no text' };
      }
      return { ok: true, text: summary };
    },
  };
}
