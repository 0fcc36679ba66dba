"""The analyzerpi distribution's own uploader, as the bench's baseline for CPU per recording.

What it does per 15 s recording, and all it does: read the WAV with soundfile (libsndfile),
write FLAC into memory with it (16-bit frames, soundfile's buffer API, no numpy), post the soundscape with requests.post (a new connection
each time, no session), then post each detection as JSON, one after another. Sequential,
no retries, nothing durable: what fails is lost.

Run by bench/src/cpu.ts as `/usr/bin/python3 analyzerpi_uploader.py '<json>'` with the
system's python3-soundfile and python3-requests (Debian). Prints `ready` once its modules
are loaded (the analyzer it lives in has loaded them long before), starts on a line on
stdin, prints `done <n> <FLAC bytes>`, then waits for stdin to close, so that its CPU time is read
while it lives.
"""
import io
import json
import sys
from datetime import datetime, timedelta

import requests
import soundfile


def detections_of(csv_path, start):
    """The bench's result CSV, read as the analyzer hands its rows over."""
    with open(csv_path, encoding='utf-8') as f:
        rows = f.read().strip().split('\n')[1:]
    out = []
    for row in rows:
        begin, end, scientific, common, confidence = row.split(',')[:5]
        out.append({
            'timestamp': (start + timedelta(seconds=float(begin))).isoformat(),
            'start': float(begin),
            'end': float(end),
            'scientific': scientific,
            'common': common,
            'confidence': float(confidence),
        })
    return out


def main():
    args = json.loads(sys.argv[1])
    station = f"{args['url']}/api/v1/stations/{args['token']}"
    print('ready', flush=True)
    sys.stdin.readline()
    uploaded = 0
    flac_bytes = 0
    for rec in args['recordings']:
        start = datetime.fromisoformat(rec['timestamp'])
        # 16-bit frames through soundfile's buffer API: soundfile.read() would need numpy,
        # which python3-soundfile only recommends (and float64 arrays would cost more).
        with soundfile.SoundFile(rec['wav']) as wav:
            frames = wav.buffer_read(dtype='int16')
            samplerate, channels = wav.samplerate, wav.channels
        flac = io.BytesIO()
        with soundfile.SoundFile(flac, 'w', samplerate=samplerate, channels=channels, format='FLAC', subtype='PCM_16') as out:
            out.buffer_write(frames, dtype='int16')
        flac_bytes += len(flac.getvalue())
        response = requests.post(
            url=f"{station}/soundscapes?timestamp={start.isoformat()}",
            data=flac.getvalue(),
            headers={'Content-Type': 'audio/flac'},
            timeout=30,
        )
        answer = response.json()
        if not answer.get('success'):
            raise RuntimeError(f"soundscape not created: HTTP {response.status_code} {answer}")
        soundscape_id = answer['soundscape']['id']
        for d in detections_of(rec['csv'], start):
            response = requests.post(
                f'{station}/detections',
                json={
                    'timestamp': d['timestamp'],
                    'lat': args['lat'],
                    'lon': args['lon'],
                    'soundscapeId': soundscape_id,
                    'soundscapeStartTime': d['start'],
                    'soundscapeEndTime': d['end'],
                    'commonName': d['common'],
                    'scientificName': d['scientific'],
                    'algorithm': '2p4',
                    'confidence': d['confidence'],
                },
                timeout=20,
            )
            if response.status_code >= 300:
                raise RuntimeError(f"detection not created: HTTP {response.status_code} {response.text[:300]}")
        uploaded += 1
    print(f'done {uploaded} {flac_bytes}', flush=True)
    sys.stdin.read()


if __name__ == '__main__':
    main()
