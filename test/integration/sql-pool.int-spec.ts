import { Prisma } from '../../src/generated/prisma/client';
import { SqlPoolService } from '../../src/infra/prisma/sql-pool.service';
import { MediumModule, startMediumModule } from '../support/medium-module';

/** The worker's pool against this file's database: COPY inside a transaction, and what a failed COPY leaves behind. */
describe('SqlPoolService copyIn', () => {
  let medium: MediumModule;
  let pool: SqlPoolService;

  beforeAll(async () => {
    medium = await startMediumModule([]);
    pool = medium.module.get(SqlPoolService);
    await medium.db.sql.query('CREATE TABLE copied (n int NOT NULL, label text)');
  });
  afterAll(() => medium?.close());

  const rows = async () => (await medium.db.sql.query('SELECT n, label FROM copied ORDER BY n')).rows;

  const insertMarker = (n: number) => Prisma.sql`INSERT INTO copied (n, label) VALUES (${n}, 'marker')`;

  beforeEach(() => medium.db.sql.query('TRUNCATE copied'));

  it('copies every chunk in order within the transaction, backpressure included', async () => {
    // 20 chunks of 2,000 rows (~30 KB each), past the stream's 16 KB buffer: the writer waits for it to drain
    function* chunks() {
      for (let chunk = 0; chunk < 20; chunk++) {
        let text = '';
        for (let row = 0; row < 2000; row++) text += `${chunk * 2000 + row}\tlabel\\tof ${row}\n`;
        yield text;
      }
    }
    await pool.transaction((tx) => tx.copyIn('COPY copied (n, label) FROM STDIN', chunks()));
    const { rows: counted } = await medium.db.sql.query('SELECT count(*)::int AS n, max(n) AS last, min(label) AS label FROM copied');
    expect(counted[0]).toEqual({ n: 40_000, last: 39_999, label: 'label\tof 0' });
  });

  it('rolls back the whole transaction with the database error when a row is refused, and the pool works on', async () => {
    const refused = pool.transaction(async (tx) => {
      await tx.execute(insertMarker(1));
      await tx.copyIn('COPY copied (n, label) FROM STDIN', ['2\tok\n', 'not-a-number\tbad\n']);
    });
    await expect(refused).rejects.toMatchObject({ code: '22P02' });
    expect(await rows()).toEqual([]);
    await pool.transaction((tx) => tx.execute(insertMarker(3)));
    expect(await rows()).toEqual([{ n: 3, label: 'marker' }]);
  });

  it('abandons the COPY when a chunk cannot be built: its error, nothing stored, and the pool works on', async () => {
    const broken = new Error('this chunk cannot be built');
    function* chunks() {
      yield '4\tfirst\n';
      throw broken;
    }
    const failed = pool.transaction(async (tx) => {
      await tx.execute(insertMarker(5));
      await tx.copyIn('COPY copied (n, label) FROM STDIN', chunks());
    });
    await expect(failed).rejects.toBe(broken);
    expect(await rows()).toEqual([]);
    await pool.transaction((tx) => tx.execute(insertMarker(6)));
    expect(await rows()).toEqual([{ n: 6, label: 'marker' }]);
  });
});
