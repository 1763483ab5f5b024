// The `query` parameter of GET /v1/events: free text plus `key:value` tokens, values optionally
// quoted (`tags.route:"/api/users"`). A token whose key is not a known one is free text, so a
// search for `http://example.com` just works.
export interface ParsedQuery {
  text: string[];
  release?: string;
  environment?: string;
  level?: string;
  userId?: string;
  userEmail?: string;
  traceId?: string;
  tags: Array<[string, string]>;
}

const TOKEN = /(?:([A-Za-z_][\w.-]*):)?(?:"((?:[^"\\]|\\.)*)"|(\S+))/g;

export function parseQuery(query: string): ParsedQuery {
  const parsed: ParsedQuery = { text: [], tags: [] };
  for (const match of query.matchAll(TOKEN)) {
    const key = match[1];
    const value = match[2] !== undefined ? match[2].replace(/\\(.)/g, '$1') : match[3];
    if (!key) {
      if (value) parsed.text.push(value);
      continue;
    }
    if (!applyKey(parsed, key, value)) parsed.text.push(match[0].replace(/"/g, ''));
  }
  return parsed;
}

function applyKey(parsed: ParsedQuery, key: string, value: string): boolean {
  switch (key) {
    case 'release':
      parsed.release = value;
      return true;
    case 'environment':
      parsed.environment = value;
      return true;
    case 'level':
      parsed.level = value;
      return true;
    case 'user.id':
      parsed.userId = value;
      return true;
    case 'user.email':
      parsed.userEmail = value;
      return true;
    case 'trace_id':
      parsed.traceId = value.toLowerCase();
      return true;
    default:
      if (key.startsWith('tags.') && key.length > 5) {
        parsed.tags.push([key.slice(5), value]);
        return true;
      }
      return false;
  }
}
