// A start error about one of startEmulator's options, with the option's name left open: the library names it in
// its own words (the `port` option); a program in front of it names what sets it there (the CLI, a flag).

/** The options of startEmulator a start error may be about. */
export type StartOptionName = 'port' | 'dataDir' | 'inMemory' | 'databaseUrl';

/** A message about one option: `says` writes it with the option named as given. */
export interface AboutOption {
  readonly option: StartOptionName;
  says(name: string): string;
}

/** The library's name of an option, as its own messages give it. */
export function optionWords(option: StartOptionName): string {
  return `the \`${option}\` option`;
}

/** An error of a start, about one option or none; its message names the option in the library's words. */
export class StartOptionError extends Error {
  /** The option the error is about, when it is about one. */
  readonly option: StartOptionName | undefined;
  /** What the message is made from: the sentence with the option left open, or the message itself. */
  readonly about: AboutOption | string;

  constructor(message: AboutOption | string) {
    super(typeof message === 'string' ? message : message.says(optionWords(message.option)));
    this.name = 'StartOptionError';
    this.about = message;
    this.option = typeof message === 'string' ? undefined : message.option;
  }

  /** The message with the option named as given (e.g. the flag that sets it); the message itself when about none. */
  naming(name: string): string {
    return typeof this.about === 'string' ? this.about : this.about.says(name);
  }
}
