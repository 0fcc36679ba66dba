export const EXIT = {
    OK: 0,
    FAILURE: 1,
    USAGE: 2,
    CONFIG: 3,
    NETWORK: 4,
    QUEUE: 5,
};
export const EXIT_CODES_HELP = `
Exit codes:
  0  ok
  1  failure (a check failed, an operation did not complete)
  2  usage error (unknown option, missing argument)
  3  configuration invalid
  4  service unreachable or request refused
  5  queue database unusable`;
