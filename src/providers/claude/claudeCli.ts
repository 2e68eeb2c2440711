// Claude Code, one headless `claude -p` process per attempt, driven exactly as gemini is: the prompt
// on stdin, its own tools off (--tools ""), devx's system prompt in place of its own, JSON output, a
// scratch working directory, and none of the machine's settings, CLAUDE.md or MCP servers
// (--setting-sources "", --strict-mcp-config). Its own retries are off: the shared RetryingBackend
// owns accounts, backoff and fallback.
import { CliBackend, type CliBackendOptions, type CliSpec } from '../cliBackend.js';
import { classifyClaudeResult } from './classifyClaudeResult.js';

export const CLAUDE_INSTALL_HINT =
  'devx needs Claude Code for the claude provider. Install it with `npm install -g @anthropic-ai/claude-code` (then run `claude` once to log in, or set ANTHROPIC_API_KEY), or point devx at it with DEVX_CLAUDE_BIN or "providers.claude.bin" in settings.';

function claudeArgsFor(model: string, systemFile: string, format: 'json' | 'stream-json'): string[] {
  return [
    '-p',
    '--output-format',
    format,
    `--model=${model}`,
    '--tools',
    '',
    '--system-prompt-file',
    systemFile,
    '--setting-sources',
    '',
    '--strict-mcp-config',
    '--disable-slash-commands',
    '--no-session-persistence',
  ];
}

const streamDelta = (line: string): string | null => {
  try {
    const j = JSON.parse(line) as { type?: string; event?: { type?: string; delta?: { type?: string; text?: string } } };
    return j.type === 'stream_event' && j.event?.type === 'content_block_delta' && j.event.delta?.type === 'text_delta' ? (j.event.delta.text ?? null) : null;
  } catch {
    return null;
  }
};

const RESULT_LINE = /"type":\s*"result"/;

export const claudeSpec: CliSpec = {
  name: 'claude',
  api: 'the Anthropic API',
  installHint: CLAUDE_INSTALL_HINT,
  args: (model, systemFile) => claudeArgsFor(model, systemFile, 'json'),
  env: (base) => ({
    DISABLE_TELEMETRY: '1',
    DISABLE_AUTOUPDATER: '1',
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    ...base,
    // claude's own retry loop would wait minutes inside one call; devx retries, with accounts and fallback.
    CLAUDE_CODE_MAX_RETRIES: '0',
    NO_COLOR: '1',
  }),
  classify: classifyClaudeResult,
  // claude spends a while shutting down after it prints its result; devx goes on meanwhile.
  answerMarker: /\}\s*$/,
  launch: { dirs: [], files: {}, tooEarly: /System prompt file not found/ },
  // Images and PDFs go in a stream-json user message (text block, then image or document blocks with their base64 bytes).
  images: {
    args: (model, systemFile) => [
      ...claudeArgsFor(model, systemFile, 'stream-json'),
      '--input-format',
      'stream-json',
      '--verbose',
      '--include-partial-messages',
    ],
    input: (req) =>
      `${JSON.stringify({
        type: 'user',
        message: {
          role: 'user',
          content: [
            { type: 'text', text: req.prompt },
            ...(req.images ?? []).map((i) => ({
              type: i.mimeType === 'application/pdf' ? 'document' : 'image',
              source: { type: 'base64', media_type: i.mimeType, data: i.data },
            })),
          ],
        },
      })}\n`,
    delta: streamDelta,
    classify: classifyClaudeResult,
    answerMarker: RESULT_LINE,
    // The Messages API takes images and PDFs (a `document` block); it has no block for audio or video.
    refuse: (mime) =>
      mime.startsWith('image/') || mime === 'application/pdf'
        ? null
        : `claude cannot take ${mime.startsWith('audio/') ? 'audio' : mime.startsWith('video/') ? 'video' : mime} (its API accepts images and PDFs); use --provider gemini for audio and video`,
  },
  streaming: {
    args: (model, systemFile) => [...claudeArgsFor(model, systemFile, 'stream-json'), '--verbose', '--include-partial-messages'],
    delta: streamDelta,
    // The last line of stream-json is the same result object `--output-format json` prints.
    classify: classifyClaudeResult,
    answerMarker: RESULT_LINE,
  },
};

export class ClaudeCliBackend extends CliBackend {
  constructor(opts: CliBackendOptions) {
    super(claudeSpec, opts);
  }
}
