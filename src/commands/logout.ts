import {BaseCommand} from '../lib/base-command.js';
import {apiUrlFlag} from '../lib/flags.js';
import {logout} from '../services/logout.js';

export default class Logout extends BaseCommand {
  static override summary = 'Forget the stored API key for an address (does not revoke it)';
  static override examples = [
    '<%= config.bin %> logout',
    '<%= config.bin %> logout --api-url http://127.0.0.1:4010',
  ];
  static override flags = {
    'api-url': apiUrlFlag({description: 'API address to log out of (default https://api.svc.dev)'}),
  };

  async run() {
    const {flags} = await this.parse(Logout);
    const result = await logout({env: process.env, apiUrl: flags['api-url']});
    if (!this.jsonEnabled()) {
      if (result.repaired) {
        this.logToStderr(
          `The credentials path ${result.repaired.path} held ${result.repaired.was === 'folder' ? 'a folder' : 'a damaged file'} that no key could be read from; removed it, so no key is stored for any address now.`,
        );
        this.logToStderr('Run `svc login` to store a key again.');
        return result;
      }
      this.logToStderr(
        result.removed
          ? `Forgot the key stored for ${result.api_url}.`
          : `No key was stored for ${result.api_url}.`,
      );
      this.logToStderr(
        `This does not revoke the key: keys are revoked on the account page (${result.account_url}).`,
      );
      if (result.env_key_set)
        this.logToStderr('SVC_API_KEY is still set and keeps being used until you unset it.');
    }
    return result;
  }
}
