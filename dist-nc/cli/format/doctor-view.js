export function renderDoctor(checks, s) {
    const mark = { pass: s.green('PASS'), warn: s.yellow('WARN'), fail: s.red('FAIL'), skip: s.dim('SKIP') };
    const width = Math.max(...checks.map((c) => c.title.length));
    const lines = [];
    for (const c of checks) {
        lines.push(`${mark[c.status]}  ${c.title.padEnd(width)}  ${c.detail}`);
        if (c.hint)
            lines.push(`      ${' '.repeat(width)}  ${s.dim('hint:')} ${c.hint}`);
    }
    const failed = checks.filter((c) => c.status === 'fail').length;
    const warned = checks.filter((c) => c.status === 'warn').length;
    lines.push('', failed ? s.red(`${failed} check${failed === 1 ? '' : 's'} failed`) + (warned ? `, ${warned} warning${warned === 1 ? '' : 's'}` : '') : s.green('all checks passed') + (warned ? ` (${warned} warning${warned === 1 ? '' : 's'})` : ''));
    return lines;
}
