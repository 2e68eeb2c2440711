// Images out: the Gemini API's image model, called directly at the base URL gemini uses
// (GOOGLE_GEMINI_BASE_URL) with the API key gemini uses (GEMINI_API_KEY). Only an API-key login can: the
// gemini CLI has no image command, its OAuth login's scopes do not cover the public API, and Vertex is
// another endpoint with its own credentials, which devx does not call itself.

export const DEFAULT_IMAGE_MODEL = 'gemini-2.5-flash-image';

export interface ImageModel {
  readonly model: string;
  /** The image's bytes and type, as the model returned them. */
  generate(prompt: string, signal: AbortSignal): Promise<{ mimeType: string; bytes: Buffer; text: string }>;
}

export class ImageModelError extends Error {}

/** The image model the user's login allows, or what would enable one. */
export function imageModelFor(provider: string, env: NodeJS.ProcessEnv, fetchImpl: typeof fetch = fetch): ImageModel | { unavailable: string } {
  const enable = 'set GEMINI_API_KEY to a Gemini API key (https://aistudio.google.com/apikey)';
  if (provider !== 'gemini')
    return { unavailable: `generate_image needs the gemini provider: ${provider} has no image model devx can call. Run with --provider gemini and ${enable}.` };
  const key = env.GEMINI_API_KEY;
  if (!key) {
    const vertex = /^(1|true)$/i.test(env.GOOGLE_GENAI_USE_VERTEXAI ?? '');
    const login = vertex ? 'gemini is logged in through Vertex AI' : 'gemini is logged in with a Google account (OAuth), not an API key';
    return {
      unavailable: `generate_image cannot run: ${login}, and devx calls the Gemini API's image model only with an API key. To enable it, ${enable} in the environment devx runs in.`,
    };
  }
  return new GeminiImageModel(key, env.GOOGLE_GEMINI_BASE_URL || 'https://generativelanguage.googleapis.com', DEFAULT_IMAGE_MODEL, fetchImpl);
}

export class GeminiImageModel implements ImageModel {
  constructor(
    private readonly apiKey: string,
    private readonly baseUrl: string,
    readonly model: string,
    private readonly fetchImpl: typeof fetch = fetch,
  ) {}

  async generate(prompt: string, signal: AbortSignal): Promise<{ mimeType: string; bytes: Buffer; text: string }> {
    const url = `${this.baseUrl.replace(/\/$/, '')}/v1beta/models/${this.model}:generateContent`;
    const body = { contents: [{ role: 'user', parts: [{ text: prompt }] }], generationConfig: { responseModalities: ['IMAGE', 'TEXT'] } };
    let res: Response;
    try {
      res = await this.fetchImpl(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-goog-api-key': this.apiKey },
        body: JSON.stringify(body),
        signal: AbortSignal.any([signal, AbortSignal.timeout(180_000)]),
      });
    } catch (err) {
      if (signal.aborted) throw err;
      throw new ImageModelError(`the Gemini API is unreachable (${(err as Error).message})`);
    }
    const raw = await res.text();
    if (!res.ok) {
      let message = raw.slice(0, 300);
      try {
        message = (JSON.parse(raw) as { error?: { message?: string } }).error?.message ?? message;
      } catch {
        // not JSON: the text as it came
      }
      throw new ImageModelError(`the image model ${this.model} answered ${res.status}: ${message}`);
    }
    let json: {
      candidates?: { content?: { parts?: { text?: string; inlineData?: { mimeType?: string; data?: string } }[] }; finishReason?: string }[];
      promptFeedback?: { blockReason?: string };
    };
    try {
      json = JSON.parse(raw);
    } catch {
      throw new ImageModelError(`the image model ${this.model} answered with something that is not JSON`);
    }
    if (json.promptFeedback?.blockReason) throw new ImageModelError(`the image model refused the prompt (${json.promptFeedback.blockReason})`);
    const parts = json.candidates?.[0]?.content?.parts ?? [];
    const image = parts.find((p) => p.inlineData?.data);
    const text = parts
      .map((p) => p.text ?? '')
      .join('')
      .trim();
    if (!image?.inlineData?.data) {
      const why = json.candidates?.[0]?.finishReason;
      throw new ImageModelError(`the image model returned no image${why ? ` (finish reason ${why})` : ''}${text ? `; it said: ${text.slice(0, 300)}` : ''}`);
    }
    return { mimeType: image.inlineData.mimeType ?? 'application/octet-stream', bytes: Buffer.from(image.inlineData.data, 'base64'), text };
  }
}
