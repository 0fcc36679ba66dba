import { ConfigError } from '../config/errors.js';
import { SecretFileError, readSecretFile } from '../config/secret-files.js';
export async function webhookFromConfig(config, configFile = null, warn = () => { }) {
    const w = config.alerts.webhook;
    if (!w.url)
        return null;
    let secret = null;
    if (w.secretFile) {
        try {
            const file = await readSecretFile('alerts.webhook.secretFile', w.secretFile);
            if (file.looseMode)
                warn(file.looseMode);
            secret = { header: w.secretHeader, prefix: w.secretPrefix, value: file.value };
        }
        catch (err) {
            if (err instanceof SecretFileError)
                throw new ConfigError([err.message], configFile, undefined, { cause: err });
            throw err;
        }
    }
    return { url: w.url, headers: w.headers, secret };
}
