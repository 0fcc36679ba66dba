export function clockHold(mode, state) {
    if (mode === 'never')
        return null;
    if (state === 'unsynchronized' || (mode === 'always' && state === 'unknown')) {
        return `the system clock is not synchronised (${state}); uploads wait so that no wrong times are posted`;
    }
    return null;
}
