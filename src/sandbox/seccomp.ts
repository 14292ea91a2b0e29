/**
 * The sandbox's seccomp filter, as a classic-BPF program (`struct sock_filter[]`) that bubblewrap loads with
 * `--seccomp FD` (and the harness loads itself with `prctl(PR_SET_SECCOMP)` where no bubblewrap runs).
 *
 * Default allow, with a deny list of what a test program never needs and what widens the kernel's attack surface:
 * new namespaces (`unshare`, `setns`, `clone` with a `CLONE_NEW*` flag; `clone3` answers ENOSYS so that the C
 * library falls back to `clone`, whose flags a filter can read), mounts (`mount`, `umount2`, `pivot_root`, the new
 * mount API, `chroot`), other processes' memory (`ptrace`, `process_vm_readv/writev`, `pidfd_getfd`,
 * `process_madvise`, `kcmp`), kernel key rings, `bpf`, `userfaultfd`, `perf_event_open`, `io_uring`, modules,
 * `kexec`, swap, reboot, host and domain names, `quotactl`, `syslog`, `acct`. Sockets: only `AF_UNIX`, `AF_INET`
 * and `AF_INET6` (the sandbox's network namespace has nothing but its own loopback); every other family
 * (`AF_VSOCK`, which a network namespace does not isolate, `AF_NETLINK`, `AF_PACKET`, ...) fails with
 * EAFNOSUPPORT. Denied calls fail with EPERM. A system call of another ABI (i386 or x32 on x86-64, arm32 on
 * arm64) kills the process: its numbers are not the ones checked here.
 *
 * Syscall numbers: Linux `arch/x86/entry/syscalls/syscall_64.tbl` and `include/uapi/asm-generic/unistd.h`
 * (arm64), checked against this host's `/usr/include/x86_64-linux-gnu/asm/unistd_64.h` and
 * `/usr/include/asm-generic/unistd.h`. BPF encoding: `include/uapi/linux/filter.h`, `linux/seccomp.h`.
 */

const BPF_LD_W_ABS = 0x20; // BPF_LD | BPF_W | BPF_ABS
const BPF_JEQ_K = 0x15; // BPF_JMP | BPF_JEQ | BPF_K
const BPF_JGE_K = 0x35; // BPF_JMP | BPF_JGE | BPF_K
const BPF_JSET_K = 0x45; // BPF_JMP | BPF_JSET | BPF_K
const BPF_RET_K = 0x06; // BPF_RET | BPF_K

const RET_ALLOW = 0x7fff0000;
const RET_KILL_PROCESS = 0x80000000;
const RET_ERRNO = 0x00050000;
const EPERM = 1;
const ENOSYS = 38;
const EAFNOSUPPORT = 97;

const AUDIT_ARCH_X86_64 = 0xc000003e;
const AUDIT_ARCH_AARCH64 = 0xc00000b7;
/** x32 system calls on x86-64 carry this bit in their number. */
const X32_SYSCALL_BIT = 0x40000000;

/** CLONE_NEWNS | CLONE_NEWCGROUP | CLONE_NEWUTS | CLONE_NEWIPC | CLONE_NEWUSER | CLONE_NEWPID | CLONE_NEWNET. */
export const CLONE_NEW_FLAGS = 0x00020000 | 0x02000000 | 0x04000000 | 0x08000000 | 0x10000000 | 0x20000000 | 0x40000000;
/** Socket families allowed: AF_UNIX, AF_INET, AF_INET6. */
export const ALLOWED_SOCKET_FAMILIES = [1, 2, 10];

/** Denied system calls (EPERM), by name; `clone`, `clone3`, `socket` and `socketpair` are handled apart. */
export const DENIED = [
  "unshare",
  "setns",
  "mount",
  "umount2",
  "pivot_root",
  "chroot",
  "open_tree",
  "move_mount",
  "fsopen",
  "fsconfig",
  "fsmount",
  "fspick",
  "mount_setattr",
  "ptrace",
  "process_vm_readv",
  "process_vm_writev",
  "pidfd_getfd",
  "process_madvise",
  "kcmp",
  "keyctl",
  "add_key",
  "request_key",
  "bpf",
  "userfaultfd",
  "perf_event_open",
  "io_uring_setup",
  "io_uring_enter",
  "io_uring_register",
  "kexec_load",
  "kexec_file_load",
  "init_module",
  "finit_module",
  "delete_module",
  "open_by_handle_at",
  "name_to_handle_at",
  "acct",
  "swapon",
  "swapoff",
  "reboot",
  "sethostname",
  "setdomainname",
  "quotactl",
  "lookup_dcookie",
  "syslog",
  "vhangup",
  "nfsservctl",
] as const;

type Name = (typeof DENIED)[number] | "clone" | "clone3" | "socket" | "socketpair";

/** x86-64 numbers (syscall_64.tbl). x86-64 also has iopl/ioperm/uselib, denied as well. */
const X86_64: Record<Name, number> & Record<string, number> = {
  unshare: 272,
  setns: 308,
  mount: 165,
  umount2: 166,
  pivot_root: 155,
  chroot: 161,
  open_tree: 428,
  move_mount: 429,
  fsopen: 430,
  fsconfig: 431,
  fsmount: 432,
  fspick: 433,
  mount_setattr: 442,
  ptrace: 101,
  process_vm_readv: 310,
  process_vm_writev: 311,
  pidfd_getfd: 438,
  process_madvise: 440,
  kcmp: 312,
  keyctl: 250,
  add_key: 248,
  request_key: 249,
  bpf: 321,
  userfaultfd: 323,
  perf_event_open: 298,
  io_uring_setup: 425,
  io_uring_enter: 426,
  io_uring_register: 427,
  kexec_load: 246,
  kexec_file_load: 320,
  init_module: 175,
  finit_module: 313,
  delete_module: 176,
  open_by_handle_at: 304,
  name_to_handle_at: 303,
  acct: 163,
  swapon: 167,
  swapoff: 168,
  reboot: 169,
  sethostname: 170,
  setdomainname: 171,
  quotactl: 179,
  lookup_dcookie: 212,
  syslog: 103,
  vhangup: 153,
  nfsservctl: 180,
  iopl: 172,
  ioperm: 173,
  uselib: 134,
  clone: 56,
  clone3: 435,
  socket: 41,
  socketpair: 53,
};

/** arm64 numbers (asm-generic/unistd.h). */
const AARCH64: Record<Name, number> = {
  unshare: 97,
  setns: 268,
  mount: 40,
  umount2: 39,
  pivot_root: 41,
  chroot: 51,
  open_tree: 428,
  move_mount: 429,
  fsopen: 430,
  fsconfig: 431,
  fsmount: 432,
  fspick: 433,
  mount_setattr: 442,
  ptrace: 117,
  process_vm_readv: 270,
  process_vm_writev: 271,
  pidfd_getfd: 438,
  process_madvise: 440,
  kcmp: 272,
  keyctl: 219,
  add_key: 217,
  request_key: 218,
  bpf: 280,
  userfaultfd: 282,
  perf_event_open: 241,
  io_uring_setup: 425,
  io_uring_enter: 426,
  io_uring_register: 427,
  kexec_load: 104,
  kexec_file_load: 294,
  init_module: 105,
  finit_module: 273,
  delete_module: 106,
  open_by_handle_at: 265,
  name_to_handle_at: 264,
  acct: 89,
  swapon: 224,
  swapoff: 225,
  reboot: 142,
  sethostname: 161,
  setdomainname: 162,
  quotactl: 60,
  lookup_dcookie: 18,
  syslog: 116,
  vhangup: 58,
  nfsservctl: 42,
  clone: 220,
  clone3: 435,
  socket: 198,
  socketpair: 199,
};

interface Insn {
  code: number;
  k: number;
  /** Jump targets (labels) when true / false; omitted: the next instruction. */
  jt?: string;
  jf?: string;
  label?: string;
}

/** offsetof(struct seccomp_data, nr / arch / args[0]) (the low 32 bits of args[0] on a little-endian machine). */
const NR = 0;
const ARCH = 4;
const ARG0 = 16;

function archBlock(label: string, table: Record<string, number>, names: readonly string[], x32Guard: boolean): Insn[] {
  const p: Insn[] = [{ label, code: BPF_LD_W_ABS, k: NR }];
  if (x32Guard) p.push({ code: BPF_JGE_K, k: X32_SYSCALL_BIT, jt: "kill" });
  for (const n of names) p.push({ code: BPF_JEQ_K, k: table[n]!, jt: "eperm" });
  p.push({ code: BPF_JEQ_K, k: table.clone3!, jt: "enosys" });
  p.push({ code: BPF_JEQ_K, k: table.clone!, jt: `${label}.clone` });
  p.push({ code: BPF_JEQ_K, k: table.socket!, jt: `${label}.socket` });
  p.push({ code: BPF_JEQ_K, k: table.socketpair!, jt: `${label}.socket` });
  p.push({ code: BPF_RET_K, k: RET_ALLOW });
  p.push({ label: `${label}.clone`, code: BPF_LD_W_ABS, k: ARG0 });
  p.push({ code: BPF_JSET_K, k: CLONE_NEW_FLAGS, jt: "eperm", jf: "allow" });
  p.push({ label: `${label}.socket`, code: BPF_LD_W_ABS, k: ARG0 });
  for (const f of ALLOWED_SOCKET_FAMILIES) p.push({ code: BPF_JEQ_K, k: f, jt: "allow" });
  p.push({ code: BPF_RET_K, k: RET_ERRNO | EAFNOSUPPORT });
  return p;
}

/** Resolves labels into relative jump offsets (0–255) and encodes each instruction in 8 bytes, little-endian. */
function assemble(prog: Insn[]): Buffer {
  const at = new Map<string, number>();
  prog.forEach((insn, i) => insn.label !== undefined && at.set(insn.label, i));
  const out = Buffer.alloc(prog.length * 8);
  prog.forEach((insn, i) => {
    const rel = (label: string | undefined): number => {
      if (label === undefined) return 0;
      const target = at.get(label);
      if (target === undefined || target <= i || target - i - 1 > 255) throw new Error(`seccomp: bad jump to ${label}`);
      return target - i - 1;
    };
    out.writeUInt16LE(insn.code, i * 8);
    out.writeUInt8(rel(insn.jt), i * 8 + 2);
    out.writeUInt8(rel(insn.jf), i * 8 + 3);
    out.writeUInt32LE(insn.k >>> 0, i * 8 + 4);
  });
  return out;
}

let cached: Buffer | undefined;

/**
 * The filter for this machine's architecture (x86-64 or arm64; both are in the program, selected by
 * `seccomp_data.arch`). Throws on a big-endian host (the argument offsets assume little-endian).
 * @returns the `struct sock_filter` array, 8 bytes per instruction.
 */
export function seccompFilter(): Buffer {
  if (cached) return cached;
  if (new Uint8Array(new Uint16Array([1]).buffer)[0] !== 1)
    throw new Error("seccomp: big-endian hosts are not supported");
  const x86Names = [...DENIED, "iopl", "ioperm", "uselib"];
  const prog: Insn[] = [
    { code: BPF_LD_W_ABS, k: ARCH },
    { code: BPF_JEQ_K, k: AUDIT_ARCH_X86_64, jt: "x86_64" },
    { code: BPF_JEQ_K, k: AUDIT_ARCH_AARCH64, jt: "aarch64", jf: "kill" },
    ...archBlock("x86_64", X86_64, x86Names, true),
    ...archBlock("aarch64", AARCH64, DENIED, false),
    { label: "allow", code: BPF_RET_K, k: RET_ALLOW },
    { label: "eperm", code: BPF_RET_K, k: RET_ERRNO | EPERM },
    { label: "enosys", code: BPF_RET_K, k: RET_ERRNO | ENOSYS },
    { label: "kill", code: BPF_RET_K, k: RET_KILL_PROCESS },
  ];
  cached = assemble(prog);
  return cached;
}
