// `session/load`: a saved conversation as the updates a client shows: the user's messages, the
// model's prose, and its tool calls (as completed calls; their results stay with the model).
import type * as acp from '@agentclientprotocol/sdk';
import type { Message } from '../core/messages.js';
import { parseToolCalls } from '../protocol/parseToolCalls.js';
import type { Tool } from '../tools/types.js';
import { ToolCallTracker } from './toolCalls.js';

export function replayHistory(messages: Message[], root: string, tools: Map<string, Tool>): acp.SessionUpdate[] {
  const tracker = new ToolCallTracker(
    () => root,
    () => tools,
    'history',
  );
  const out: acp.SessionUpdate[] = [];
  const text = (sessionUpdate: 'user_message_chunk' | 'agent_message_chunk', t: string) => out.push({ sessionUpdate, content: { type: 'text', text: t } });
  for (const m of messages) {
    if (m.role === 'user') text('user_message_chunk', m.content);
    else if (m.role === 'assistant') {
      const parsed = parseToolCalls(m.content);
      if (parsed.prose) text('agent_message_chunk', `${parsed.prose}\n`);
      for (const c of parsed.calls) out.push(tracker.start(c.tool, c.args, 'completed'));
    }
  }
  return out;
}
