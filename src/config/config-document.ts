// The config file as the ConfigStore holds it (text, YAML document with comments, plain value), read from disk,
// parsed, and prepared for writing with its literal secrets moved out.
import { readFile } from 'node:fs/promises';
import { Document, parseDocument } from 'yaml';
import { ConfigError } from './config-error.js';
import { isPlainObject, renderDocument, type RawConfig } from './config-edit.js';
import type { SecretValues } from './secrets-file.js';
import { externalizeSecrets } from './secrets.js';

/** The config file as the store knows it: its text, the YAML document (comments kept) and its plain value. */
export interface ConfigFile {
  text: string;
  doc: Document;
  raw: RawConfig;
}

/** A config file and the secrets its references need, as they are about to be written. */
export interface Prepared {
  file: ConfigFile;
  secrets: SecretValues;
}

export function parseFile(text: string, source: string): ConfigFile {
  const doc = parseDocument(text);
  const firstError = doc.errors[0];
  if (firstError !== undefined) throw new ConfigError(`Invalid YAML in ${source}: ${firstError.message}`);
  const raw: unknown = doc.toJS() ?? {};
  if (!isPlainObject(raw))
    throw new ConfigError(`Invalid configuration in ${source}: (root): expected a mapping of sections`, [
      '(root): expected a mapping of sections',
    ]);
  return { text, doc, raw };
}

/** `file` with its literal secrets moved into `secrets`; the text is rendered again only when one moved. */
export function moveSecretsOut(file: ConfigFile, secrets: SecretValues, source: string): Prepared {
  const externalized = externalizeSecrets(file.raw, secrets);
  if (externalized.moved === 0) return { file, secrets };
  return {
    file: parseFile(renderDocument(file.doc, externalized.raw, file.text), source),
    secrets: externalized.secrets,
  };
}

/** The file's text, or the text of `initialDocument` (not written yet) when there is no file. */
export async function readConfigText(
  configPath: string,
  initialDocument: RawConfig | undefined,
): Promise<{ text: string; isOnDisk: boolean }> {
  try {
    return { text: await readFile(configPath, 'utf8'), isOnDisk: true };
  } catch (error) {
    const code = error instanceof Error && 'code' in error ? String(error.code) : String(error);
    if (code !== 'ENOENT' || initialDocument === undefined)
      throw new ConfigError(`Cannot read config file ${configPath}: ${code}`);
  }
  return { text: new Document(initialDocument).toString(), isOnDisk: false };
}
