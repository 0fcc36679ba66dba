import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';

/**
 * Rebuilds a unit's SystemCallFilter= and RestrictAddressFamilies= as a seccomp filter
 * outside systemd (the test machines do not run systemd as PID 1), so that Node can be
 * run under the same system call restrictions the unit gives it.
 */

/** The sandbox settings of a unit file that matter for system calls. */
export interface UnitSyscallSettings {
  /** The SystemCallFilter= lines in order, e.g. ['@system-service', '~@privileged @resources']. */
  filters: string[];
  /** RestrictAddressFamilies=, e.g. ['AF_UNIX', 'AF_INET', 'AF_INET6']. */
  addressFamilies: string[];
}

export function readUnitSyscallSettings(unitText: string): UnitSyscallSettings {
  const values = (key: string): string[] =>
    unitText
      .split('\n')
      .map((line) => line.trim())
      .filter((line) => line.startsWith(`${key}=`))
      .map((line) => line.slice(key.length + 1).trim());
  return {
    filters: values('SystemCallFilter'),
    addressFamilies: values('RestrictAddressFamilies').flatMap((v) => v.split(/\s+/)),
  };
}

/** Every group that `systemd-analyze syscall-filter` knows, with its entries (calls or @groups). */
export function readSyscallGroups(): Map<string, string[]> {
  const out = execFileSync('systemd-analyze', ['syscall-filter', '--no-pager'], { encoding: 'utf8' });
  const groups = new Map<string, string[]>();
  let current: string[] | undefined;
  for (const raw of out.split('\n')) {
    const line = raw.trim();
    if (line.startsWith('@') && !raw.startsWith(' ')) {
      current = [];
      groups.set(line, current);
    } else if (current && line !== '' && !line.startsWith('#')) {
      current.push(line);
    } else if (line === '') {
      current = undefined;
    }
  }
  return groups;
}

function expand(entry: string, groups: Map<string, string[]>, into: Set<string>): void {
  if (!entry.startsWith('@')) {
    into.add(entry);
    return;
  }
  const members = groups.get(entry);
  if (!members) throw new Error(`systemd-analyze does not know the system call group ${entry}`);
  for (const member of members) expand(member, groups, into);
}

/**
 * The allowed system calls, as systemd computes them: the first line starting without `~`
 * is an allow list, and every later `~` line removes its calls from it.
 */
export function allowedSyscalls(filters: string[], groups: Map<string, string[]>): string[] {
  const allowed = new Set<string>();
  filters.forEach((filter, index) => {
    const deny = filter.startsWith('~');
    if (index === 0 && deny) throw new Error('the first SystemCallFilter= line is not an allow list');
    const entries = filter.replace(/^~/, '').split(/\s+/).filter(Boolean);
    const calls = new Set<string>();
    for (const entry of entries) expand(entry, groups, calls);
    for (const call of calls) {
      if (deny) allowed.delete(call);
      else allowed.add(call);
    }
  });
  return [...allowed].sort();
}

/**
 * C source of a launcher that installs the filter and executes its arguments. A call
 * outside the allow list kills the process (stricter than the unit's
 * SystemCallErrorNumber=EPERM, so that a forbidden call cannot go unnoticed); socket()
 * with a family outside the list fails with EAFNOSUPPORT, as under systemd. The soft
 * open-file limit is set to 1024, systemd's default, so that Node raises it as it does
 * under systemd.
 */
export function launcherSource(
  allowed: string[],
  addressFamilies: string[],
  options: { memoryDenyWriteExecute?: boolean } = {},
): string {
  const allowRules = allowed
    .map((call) => `#ifdef __NR_${call}\n  ALLOW(__NR_${call}),\n#endif`)
    .join('\n');
  const familyRules = addressFamilies.map((family) => `  FAMILY(${family}),`).join('\n');
  // MemoryDenyWriteExecute=yes as systemd 252 builds it: mmap() asking for writable and
  // executable memory, and mprotect()/pkey_mprotect() adding PROT_EXEC, fail with EPERM.
  const mdweRules = options.memoryDenyWriteExecute
    ? ['DENY_PROT(__NR_mmap, PROT_WRITE | PROT_EXEC),', 'DENY_PROT(__NR_mprotect, PROT_EXEC),',
       '#ifdef __NR_pkey_mprotect', 'DENY_PROT(__NR_pkey_mprotect, PROT_EXEC),', '#endif']
        .map((line) => `  ${line}`)
        .join('\n')
    : '';
  return `#define _GNU_SOURCE
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>

#if defined(__x86_64__)
#define NATIVE_ARCH AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define NATIVE_ARCH AUDIT_ARCH_AARCH64
#elif defined(__arm__)
#define NATIVE_ARCH AUDIT_ARCH_ARM
#else
#error "unsupported architecture"
#endif

#define ALLOW(nr) BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (nr), 0, 1), BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW)
#define FAMILY(f) BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (f), 0, 1), BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW)
#define KILL BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS)
#define LOAD_NR BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr))
/* if nr matches: fail with EPERM when (args[2] & bits) == bits; reload nr either way */
#define DENY_PROT(nr, bits) \
  BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (nr), 0, 5), \
  BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, args[2])), \
  BPF_STMT(BPF_ALU | BPF_AND | BPF_K, (bits)), \
  BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (bits), 0, 1), \
  BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM), \
  LOAD_NR

static struct sock_filter socket_rules[] = {
  BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, args[0])),
${familyRules}
  BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EAFNOSUPPORT),
};

static struct sock_filter head[] = {
  BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
  BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, NATIVE_ARCH, 1, 0),
  KILL,
  LOAD_NR,
#ifdef __X32_SYSCALL_BIT
  BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, __X32_SYSCALL_BIT, 0, 1),
  KILL,
#endif
${mdweRules}
};

static struct sock_filter allow_rules[] = {
${allowRules}
  KILL,
};

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: %s command [args...]\\n", argv[0]);
    return 2;
  }
  struct rlimit nofile;
  if (getrlimit(RLIMIT_NOFILE, &nofile) == 0 && nofile.rlim_max > 1024) {
    nofile.rlim_cur = 1024;
    setrlimit(RLIMIT_NOFILE, &nofile);
  }
  enum { HEAD = sizeof head / sizeof head[0], SOCK = sizeof socket_rules / sizeof socket_rules[0],
         ALLOWED = sizeof allow_rules / sizeof allow_rules[0] };
  /* head, then "is it socket()? no: skip the socket rules", the socket rules, the allow list */
  struct sock_filter program[HEAD + 1 + SOCK + ALLOWED];
  size_t n = 0;
  for (size_t i = 0; i < HEAD; i++) program[n++] = head[i];
  program[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_socket, 0, SOCK);
  for (size_t i = 0; i < SOCK; i++) program[n++] = socket_rules[i];
  for (size_t i = 0; i < ALLOWED; i++) program[n++] = allow_rules[i];
  struct sock_fprog prog = { .len = (unsigned short)n, .filter = program };
  if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) { perror("PR_SET_NO_NEW_PRIVS"); return 111; }
  if (prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) != 0) { perror("PR_SET_SECCOMP"); return 111; }
  execvp(argv[1], argv + 1);
  perror("execvp");
  return 111;
}
`;
}

/** Writes and compiles the launcher with the system C compiler; returns its path. */
export function compileLauncher(dir: string, source: string): string {
  const sourcePath = path.join(dir, 'seccomp-launcher.c');
  const binaryPath = path.join(dir, 'seccomp-launcher');
  writeFileSync(sourcePath, source);
  execFileSync('cc', ['-O1', '-Wall', '-o', binaryPath, sourcePath], { stdio: 'pipe' });
  return binaryPath;
}
