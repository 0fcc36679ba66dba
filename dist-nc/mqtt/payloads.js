export function detectionPayload(d, station) {
    return {
        event: 'detected',
        id: d.id,
        species: d.commonName,
        scientificName: d.scientificName,
        confidence: d.confidence,
        timestamp: d.timestamp,
        startS: d.startS,
        endS: d.endS,
        station,
        queuedAt: new Date(d.createdAt).toISOString(),
    };
}
export function updatePayload(u, station) {
    return {
        event: u.state,
        id: u.id,
        detectionId: u.remoteId,
        soundscapeId: u.soundscapeId,
        species: u.commonName,
        scientificName: u.scientificName,
        timestamp: u.timestamp,
        station,
        at: new Date(u.updatedAt).toISOString(),
    };
}
