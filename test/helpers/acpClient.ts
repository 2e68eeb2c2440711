// An editor's side of ACP for the tests: the SDK's client, recording what the agent sends.
import * as acp from '@agentclientprotocol/sdk';

/**
 * A client that keeps every session update and permission request, and answers each request with
 * `answer.optionId` ('hold': the person never answers, as when the turn is cancelled while the question is open).
 */
export function editorClient() {
  const updates: acp.SessionNotification[] = [];
  const permissions: acp.RequestPermissionRequest[] = [];
  const answer = { optionId: 'allow_once' };
  const app = acp
    .client({ name: 'test-editor' })
    .onNotification(acp.methods.client.session.update, ({ params }) => {
      updates.push(params);
    })
    .onRequest(acp.methods.client.session.requestPermission, ({ params }) => {
      permissions.push(params);
      if (answer.optionId === 'hold') return new Promise<never>(() => undefined);
      return { outcome: { outcome: 'selected', optionId: answer.optionId } };
    });
  return { app, updates, permissions, answer };
}
