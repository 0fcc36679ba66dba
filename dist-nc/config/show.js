import { REDACTED, redactHeaderValues, redactUrl } from '../wire/redact.js';
export function redactConfig(config) {
    const copy = structuredClone(config);
    if (copy.service.token !== undefined)
        copy.service.token = REDACTED;
    const { baseUrl, graphqlUrl } = copy.service;
    copy.service.baseUrl = redactUrl(baseUrl);
    copy.service.graphqlUrl = graphqlUrl === `${baseUrl}/graphql` ? `${copy.service.baseUrl}/graphql` : redactUrl(graphqlUrl);
    if (copy.mqtt.url !== null)
        copy.mqtt.url = redactUrl(copy.mqtt.url);
    const webhook = copy.alerts.webhook;
    if (webhook.url !== null)
        webhook.url = redactUrl(webhook.url);
    webhook.headers = redactHeaderValues(webhook.headers);
    return copy;
}
