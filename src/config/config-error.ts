// The error of a config file (or secrets file) that cannot be used; the message names the file and every offending key.

export class ConfigError extends Error {
  constructor(
    message: string,
    readonly problems: string[] = [],
  ) {
    super(message);
    this.name = 'ConfigError';
  }
}
