// Errors of the skill registry (src/skills): unknown skills and the files skill_read refuses.
import { GatewayError, notFound } from './gateway-error.js';

/** skills.get or skill_read of a name no loaded skill or offered learned procedure has. */
export const skillNotFound = (name: string, param = 'name') => notFound(`Skill '${name}' not found`, { param });

/** skill_read {file} naming nothing readable beside the skill's SKILL.md. */
export const skillFileNotFound = (skill: string, file: string) =>
  notFound(`Skill '${skill}' has no file '${file}'`, { param: 'file' });

/** skill_read {file} outside the skill's folder (`..`, an absolute path, a symlink out) or otherwise not served. */
export const skillFileRefused = (file: string, why: string) =>
  new GatewayError('forbidden', `skill_read refuses '${file}': ${why}`, { param: 'file' });

/** skill_read {file} of a file larger than skills.maxFileBytes. */
export const skillFileTooLarge = (file: string, bytes: number, maxBytes: number) =>
  new GatewayError('payload_too_large', `'${file}' is ${bytes} bytes, over skills.maxFileBytes (${maxBytes})`, {
    param: 'file',
    maxBytes,
  });
