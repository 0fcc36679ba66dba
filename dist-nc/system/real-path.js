import { realpath } from 'node:fs/promises';
import path from 'node:path';
export async function realPathOfExisting(p) {
    const abs = path.resolve(p);
    const rest = [];
    for (let dir = abs;; dir = path.dirname(dir)) {
        try {
            return path.join(await realpath(dir), ...rest);
        }
        catch {
            if (path.dirname(dir) === dir)
                return abs;
            rest.unshift(path.basename(dir));
        }
    }
}
