export function looksLikeHtml(contentType, text) {
    return /\bhtml\b/i.test(contentType ?? '') || /^\s*<(!doctype|html|head|body|title|h1|center)\b/i.test(text);
}
export function htmlTitle(text) {
    const m = /<title[^>]*>([^<]*)<\/title>/i.exec(text) ?? /<h1[^>]*>([^<]*)<\/h1>/i.exec(text);
    const title = m?.[1]?.replace(/\s+/g, ' ').trim();
    return title ? title.slice(0, 200) : undefined;
}
export function classifyBody(contentType, text) {
    if (looksLikeHtml(contentType, text))
        return { html: true, json: undefined };
    try {
        return { html: false, json: JSON.parse(text) };
    }
    catch {
        return { html: false, json: undefined };
    }
}
export const TOKEN_REFUSED_STATUSES = new Set([401, 403, 404]);
export function isTokenRefusal(status, html) {
    return TOKEN_REFUSED_STATUSES.has(status) && !html;
}
