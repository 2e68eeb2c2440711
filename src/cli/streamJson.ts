// `devx run --output-format stream-json`: devx's own events as JSON lines on stdout, for scripts and
// CI (as Claude Code's stream-json is for it). One object per line, each with a "type":
//   {"type":"turn_start","input":...}
//   {"type":"text_delta","text":...}            model prose as it arrives (when the provider streams)
//   {"type":"assistant","text":...,"final":bool} the prose of a whole reply, TOOL_CALL lines removed
//   {"type":"tool_start","tool":...,"args":{...},"summary":...}
//   {"type":"tool_end","tool":...,"status":"ok|error","decision":"allow|ask|deny"|null,"rule":...,"answer":...,"durationMs":n,"summary":...}
//   {"type":"retry","kind":...,"delayMs":n,"message":...}  and account_switch / model_fallback
//   {"type":"compaction","phase":"done|failed","reason":"auto|asked","messages":n,...}  older turns summarised (or why not)
//   {"type":"background","phase":"start|stop|exit","id":"bg1","cmd":...,...}  a background command
//   {"type":"turn_end","status":...,"answer":...,"error":...,"rounds":n,"usage":{"input":n,"cached":n,"output":n,"requests":n,"durationMs":n}}
import type { AgentEvent } from '../core/loop.js';
import { addModelCall, emptyUsage } from '../core/usageMeter.js';
import { printableJson } from '../util/terminalText.js';

export function createStreamJson(write: (line: string) => void): (e: AgentEvent) => void {
  const usage = emptyUsage();
  const out = (o: Record<string, unknown>) => write(`${printableJson(o)}\n`);
  return (e) => {
    switch (e.type) {
      case 'turn_start':
        out({ type: 'turn_start', input: e.input });
        break;
      case 'model_response':
        addModelCall(usage, e);
        out({
          type: 'model_response',
          round: e.round,
          model: e.model,
          account: e.account ?? null,
          durationMs: e.durationMs,
          usage: { input: e.usage?.input ?? null, cached: e.usage?.cached ?? null, output: e.usage?.output ?? null },
        });
        break;
      case 'backend':
        if (e.event.type === 'text_delta') out({ type: 'text_delta', text: e.event.text });
        else if (e.event.type !== 'attempt') out({ ...e.event });
        break;
      case 'assistant_text':
        out({ type: 'assistant', text: e.text, final: e.final });
        break;
      case 'tool_start':
        out({ type: 'tool_start', tool: e.tool, args: e.args });
        break;
      case 'tool_end': {
        const o = e.outcome;
        out({
          type: 'tool_end',
          tool: o.tool,
          args: o.args,
          summary: o.summary,
          status: o.status,
          decision: o.decision?.decision ?? null,
          rule: o.decision?.rule ?? null,
          answer: o.answer ?? null,
          durationMs: o.durationMs,
        });
        break;
      }
      case 'background':
        out({ ...e });
        break;
      case 'compaction':
        if (e.phase !== 'start') out({ ...e });
        break;
      case 'turn_end':
        out({ type: 'turn_end', status: e.status, answer: e.answer ?? null, error: e.error ?? null, rounds: e.rounds, usage });
        break;
      default:
        break;
    }
  };
}
