import { spawn, type ChildProcess } from 'node:child_process';
import { openSync, closeSync } from 'node:fs';
import { serveNodeFlags } from '../../src/cli/serve-node-flags.js';

export interface NodeSpec {
  readonly id: string;
  readonly dataDir: string;
  readonly sqsPort: number;
  readonly adminPort: number;
  readonly raftPort: number;
  /** The --peers value for this node: its own Raft address and, for every other node, the proxy of the link to it. */
  readonly peersFlag: string;
  readonly logPath: string;
  readonly cliPath: string;
  readonly extraArgs: readonly string[];
}

/**
 * One `raftq serve` process, as an operator would start it. Its output goes to its own log file,
 * appended across restarts. kill -9, SIGSTOP and SIGCONT are sent by pid; restart uses the same
 * flags and data directory.
 */
export class NodeProcess {
  private child: ChildProcess | undefined;
  private exited: Promise<number | null> | undefined;
  private isStopped = false;
  /** Exit codes of earlier incarnations that ended without being asked to (a crash). */
  readonly unexpectedExits: string[] = [];
  private isExitExpected = false;
  /**
   * Start with --join: set once the node was removed from the membership and comes back as a new
   * member, since it is no longer one of the founders its --peers list describes.
   */
  isJoining = false;

  constructor(readonly spec: NodeSpec) {}

  get id(): string {
    return this.spec.id;
  }

  get isRunning(): boolean {
    return this.child !== undefined;
  }

  get isPaused(): boolean {
    return this.isStopped;
  }

  get pid(): number | undefined {
    return this.child?.pid;
  }

  start(): void {
    if (this.child !== undefined) return;
    const s = this.spec;
    const args = [
      s.cliPath,
      'serve',
      '--id',
      s.id,
      '--data-dir',
      s.dataDir,
      '--sqs-listen',
      `127.0.0.1:${s.sqsPort}`,
      '--admin-listen',
      `127.0.0.1:${s.adminPort}`,
      '--raft-listen',
      `127.0.0.1:${s.raftPort}`,
      '--peers',
      s.peersFlag,
      ...(this.isJoining ? ['--join'] : []),
      ...s.extraArgs,
    ];
    const fd = openSync(s.logPath, 'a');
    const child = spawn(process.execPath, [...serveNodeFlags, ...args], { stdio: ['ignore', fd, fd] });
    closeSync(fd);
    this.child = child;
    this.isStopped = false;
    this.isExitExpected = false;
    this.exited = new Promise((resolve) => {
      child.once('exit', (code, signal) => {
        if (!this.isExitExpected)
          this.unexpectedExits.push(`${s.id} exited by itself (code ${code}, signal ${signal})`);
        if (this.child === child) {
          this.child = undefined;
          this.isStopped = false;
        }
        resolve(code);
      });
    });
  }

  /** kill -9: no chance to flush or say goodbye. Resolves once the process is gone. */
  async kill9(): Promise<void> {
    const child = this.child;
    if (child === undefined) return;
    this.isExitExpected = true;
    child.kill('SIGKILL');
    await this.exited;
  }

  /** SIGTERM, then SIGKILL if the node has not exited within `graceMs`. */
  async stop(graceMs: number): Promise<void> {
    const child = this.child;
    if (child === undefined) return;
    this.isExitExpected = true;
    if (this.isStopped) child.kill('SIGCONT');
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
    await this.exited;
    clearTimeout(timer);
  }

  pause(): void {
    if (this.child === undefined || this.isStopped) return;
    this.child.kill('SIGSTOP');
    this.isStopped = true;
  }

  resume(): void {
    if (this.child === undefined || !this.isStopped) return;
    this.child.kill('SIGCONT');
    this.isStopped = false;
  }
}
