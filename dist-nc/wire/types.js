export const CLASSIFICATIONS = ['avian', 'amphibian', 'reptile', 'mammal', 'bat', 'insect'];
export const SOUNDSCAPE_MODES = ['live', 'recorded', 'analyzerpi'];
export const BAT_BEHAVIOR_KEYS = [
    'bat_search_open',
    'bat_search_clutter',
    'bat_chase',
    'bat_feeding_buzz',
    'bat_approach',
    'bat_pass',
];
export const REST_PERIODS = ['day', 'week', 'month', 'all'];
export const CERTAINTIES = ['almost_certain', 'very_likely', 'uncertain', 'unlikely'];
export const STATION_TYPES = ['analyzerpi', 'puc', 'mobile', 'stream_video', 'stream_audio'];
export const CONFIG_RANGES = {
    minConfidence: [0.35, 1.0],
    minProbability: [0.0, 1.0],
    minScore: [0.0, 10.0],
    minHumanConfidence: [0.01, 0.25],
};
export const LIST_LIMIT_MAX = 100;
export const LIST_LIMIT_DEFAULT = 100;
