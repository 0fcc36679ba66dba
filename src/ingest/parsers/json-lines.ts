/**
 * JSON.parse gives no positions, but a row error should name a line. This scans valid JSON
 * text once and returns the 1-based line on which each element of the top-level object's
 * array `key` starts (e.g. every entry of `"detections": [...]`).
 */
export function arrayElementLines(text: string, key: string): number[] {
  const lines: number[] = [];
  let line = 1;
  let depth = 0;
  let lastKey: string | undefined;
  let awaitingValue = false; // after `"<key>":` in the top-level object
  let inTarget = false; // inside the target array (its elements are at depth 2)
  let expectElement = false;

  const valueStarts = () => {
    if (inTarget && depth === 2 && expectElement) {
      lines.push(line);
      expectElement = false;
    }
  };

  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '\n') {
      line++;
    } else if (c === '"') {
      valueStarts();
      let s = '';
      for (i++; i < text.length && text[i] !== '"'; i++) {
        if (text[i] === '\\') i++;
        s += text[i];
      }
      if (depth === 1) {
        if (awaitingValue) awaitingValue = false;
        else lastKey = s;
      }
    } else if (c === '[' || c === '{') {
      if (depth === 1 && awaitingValue && c === '[') {
        inTarget = true;
        expectElement = true;
      } else {
        valueStarts();
      }
      awaitingValue = false;
      depth++;
    } else if (c === ']' || c === '}') {
      depth--;
      if (depth === 1) inTarget = false;
    } else if (c === ',') {
      if (inTarget && depth === 2) expectElement = true;
      if (depth === 1) lastKey = undefined;
    } else if (c === ':') {
      if (depth === 1 && lastKey === key) awaitingValue = true;
    } else if (c !== ' ' && c !== '\t' && c !== '\r') {
      valueStarts();
      if (depth === 1) awaitingValue = false;
    }
  }
  return lines;
}
