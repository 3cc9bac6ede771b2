// Where a data dir keeps its database: the layout the CLI reads too, kept beside the runtime file.
export {holdsDatabase, PGDATA} from '@svc/client';
