// Which gateway instances are alive: this process has one id; the local backend knows no other instance.
import { randomUUID } from 'node:crypto';

export interface Instances {
  /** This process's instance id, fixed for its lifetime. */
  readonly currentId: string;
  /** Whether the instance with this id still runs (and so still owns its runs). */
  isAlive(instanceId: string): Promise<boolean>;
}

/** Single node: only the current process is alive; any other id belongs to a process that has exited. */
export function createLocalInstances(currentId: string = randomUUID()): Instances {
  return {
    currentId,
    isAlive: async (instanceId) => instanceId === currentId,
  };
}
