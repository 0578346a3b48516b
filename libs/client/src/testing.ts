export { ScriptedServer } from './testing/scripted-server';
export type { ScriptedHandler, ScriptedReply, ScriptedRequest } from './testing/scripted-server';
export { entryJson, hex, messageJson, syncJson } from './testing/wire-fixtures';
