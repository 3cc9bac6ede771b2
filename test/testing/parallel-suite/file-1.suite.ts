import {retryTimingFile} from './retry-timing.js';

retryTimingFile(1);
