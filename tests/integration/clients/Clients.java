// Real Java clients for the preset tests (tests/integration/test_acl_presets.py): each runs as one principal, does
// the work its kind of client does, and says how it ended on its last line:
//   RESULT ok | RESULT denied <exception> | RESULT failed <exception> | RESULT timeout
// and exits 0, 3, 1 or 4. The connection (and its password) comes from a properties file, never the command line.
//
//   java Clients txn-producer  PROPS TOPIC TXN_ID N     a transactional producer: N records in one transaction
//   java Clients share-consumer PROPS TOPIC GROUP N     a KIP-932 share consumer: N records, acknowledged
//   java Clients streams PROPS APP_ID IN OUT N PROTOCOL a Kafka Streams app (exactly-once v2, a repartition and a
//                                                       count), classic or streams (KIP-1071) group protocol
//   java Clients connect PROPS GROUP TOPIC NAME IN OUT N
//                            a distributed Connect worker (its topics GROUP-configs, -offsets, -status) running a
//                            FileStream source NAME-source (IN to TOPIC) and sink NAME-sink (TOPIC to OUT): N lines
//   java Clients commit PROPS TOPIC GROUP N         a consumer in GROUP reads N records of TOPIC and commits
//   java Clients mirror SRC_PROPS DST_PROPS READER_PROPS SRC DST TOPIC GROUP N
//                            MirrorMaker 2 (dedicated mode) from the cluster alias SRC to DST (SRC_PROPS and
//                            DST_PROPS: the same principal's connection to each), replicating TOPIC: done when
//                            READER_PROPS's principal reads N records from SRC.TOPIC on DST, and a checkpoint of
//                            GROUP's offsets (on SRC) is in SRC.checkpoints.internal and a heartbeat of SRC in
//                            heartbeats on DST. ACLs are not synced
//                            (sync.topic.acls.enabled=false: it needs Alter on the target cluster, which lets the
//                            principal create any ACL)

import java.io.FileReader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.connect.mirror.MirrorMaker;
import org.apache.kafka.clients.consumer.KafkaShareConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.errors.AuthorizationException;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.connect.cli.ConnectDistributed;
import org.apache.kafka.connect.runtime.Connect;
import org.apache.kafka.connect.runtime.Herder;
import org.apache.kafka.connect.runtime.rest.entities.ConnectorStateInfo;
import org.apache.kafka.connect.util.FutureCallback;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.errors.StreamsUncaughtExceptionHandler;
import org.apache.kafka.streams.kstream.Consumed;
import org.apache.kafka.streams.kstream.Produced;

public class Clients {
    static final long DEADLINE_MS = Long.getLong("clients.deadline.ms", 60_000L);

    public static void main(String[] args) throws Exception {
        Properties props = new Properties();
        try (FileReader in = new FileReader(args[1])) {
            props.load(in);
        }
        Thread watchdog = new Thread(() -> {  // a client that hangs while it stops (a worker waiting for a topic it
            try {                          // may not create) still ends, as a timeout
                Thread.sleep(DEADLINE_MS + 20_000);
            } catch (InterruptedException e) {
                return;
            }
            System.out.println("RESULT timeout (still stopping " + (DEADLINE_MS + 20_000) + " ms after the start)");
            System.out.flush();
            Runtime.getRuntime().halt(4);
        });
        watchdog.setDaemon(true);
        watchdog.start();
        int code;
        try {
            switch (args[0]) {
                case "txn-producer" -> txnProducer(props, args[2], args[3], Integer.parseInt(args[4]));
                case "share-consumer" -> shareConsumer(props, args[2], args[3], Integer.parseInt(args[4]));
                case "streams" -> streams(props, args[2], args[3], args[4], Integer.parseInt(args[5]), args[6]);
                case "commit" -> commit(props, args[2], args[3], Integer.parseInt(args[4]));
                case "mirror" -> mirror(props, load(args[2]), args[3], args[4], args[5], args[6], args[7],
                        Integer.parseInt(args[8]));
                case "connect" -> connect(props, args[2], args[3], args[4], args[5], args[6], Integer.parseInt(args[7]));
                default -> throw new IllegalArgumentException("unknown mode " + args[0]);
            }
            System.out.println("RESULT ok");
            code = 0;
        } catch (TimedOut e) {
            System.out.println("RESULT timeout " + e.getMessage());
            code = 4;
        } catch (Throwable e) {
            Throwable denied = authorization(e);
            if (denied != null) {
                System.out.println("RESULT denied " + denied.getClass().getSimpleName() + ": " + denied.getMessage());
                code = 3;
            } else {
                e.printStackTrace(System.out);
                System.out.println("RESULT failed " + e);
                code = 1;
            }
        }
        System.out.flush();
        Runtime.getRuntime().halt(code);  // no client thread keeps the JVM
    }

    static final class TimedOut extends Exception {
        TimedOut(String what) {
            super(what);
        }
    }

    static Throwable authorization(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof AuthorizationException) {
                return t;
            }
        }
        return null;
    }

    static void txnProducer(Properties base, String topic, String txnId, int n) {
        Properties p = new Properties();
        p.putAll(base);
        p.put("transactional.id", txnId);
        p.put("max.block.ms", "20000");
        p.put("delivery.timeout.ms", "20000");
        p.put("request.timeout.ms", "10000");
        try (KafkaProducer<String, String> producer =
                     new KafkaProducer<>(p, new StringSerializer(), new StringSerializer())) {
            producer.initTransactions();
            producer.beginTransaction();
            for (int i = 0; i < n; i++) {
                producer.send(new ProducerRecord<>(topic, "k" + i, "v" + i));
            }
            producer.commitTransaction();
        }
    }

    static void shareConsumer(Properties base, String topic, String group, int n) throws TimedOut {
        Properties p = new Properties();
        p.putAll(base);
        p.put("group.id", group);
        try (KafkaShareConsumer<String, String> consumer =
                     new KafkaShareConsumer<>(p, new StringDeserializer(), new StringDeserializer())) {
            consumer.subscribe(List.of(topic));
            int seen = 0;
            long end = System.currentTimeMillis() + DEADLINE_MS;
            while (seen < n) {
                if (System.currentTimeMillis() > end) {
                    throw new TimedOut(seen + " of " + n + " records");
                }
                ConsumerRecords<String, String> records = consumer.poll(Duration.ofMillis(500));
                seen += records.count();
                if (!records.isEmpty()) {
                    // explicit acknowledgement would need share.acknowledgement.mode=explicit: implicit is the default
                    consumer.commitSync().values().forEach(r -> r.ifPresent(x -> {
                        throw x;
                    }));
                }
            }
        }
    }

    static void streams(Properties base, String appId, String in, String out, int n, String protocol)
            throws Exception {
        Properties p = new Properties();
        p.putAll(base);
        p.put(StreamsConfig.APPLICATION_ID_CONFIG, appId);
        p.put(StreamsConfig.PROCESSING_GUARANTEE_CONFIG, StreamsConfig.EXACTLY_ONCE_V2);
        p.put(StreamsConfig.GROUP_PROTOCOL_CONFIG, protocol);
        p.put(StreamsConfig.COMMIT_INTERVAL_MS_CONFIG, "200");
        p.put(StreamsConfig.REPARTITION_PURGE_INTERVAL_MS_CONFIG, "200");
        p.put(StreamsConfig.STATE_DIR_CONFIG, System.getProperty("clients.state.dir"));
        p.put(StreamsConfig.REPLICATION_FACTOR_CONFIG, "-1");
        p.put(StreamsConfig.DEFAULT_KEY_SERDE_CLASS_CONFIG, Serdes.StringSerde.class);
        p.put(StreamsConfig.DEFAULT_VALUE_SERDE_CLASS_CONFIG, Serdes.StringSerde.class);
        AtomicInteger seen = new AtomicInteger();
        AtomicInteger counted = new AtomicInteger();
        StreamsBuilder builder = new StreamsBuilder();
        builder.stream(in, Consumed.with(Serdes.String(), Serdes.String()))
                .peek((k, v) -> seen.incrementAndGet())
                .groupBy((k, v) -> v)  // a repartition topic, then a count store with its changelog topic
                .count()
                .toStream()
                .peek((k, v) -> counted.incrementAndGet())
                .to(out, Produced.with(Serdes.String(), Serdes.Long()));
        AtomicReference<Throwable> failure = new AtomicReference<>();
        CountDownLatch stopped = new CountDownLatch(1);
        KafkaStreams app = new KafkaStreams(builder.build(), p);
        app.setUncaughtExceptionHandler(e -> {
            failure.compareAndSet(null, e);
            stopped.countDown();
            return StreamsUncaughtExceptionHandler.StreamThreadExceptionResponse.SHUTDOWN_CLIENT;
        });
        app.setStateListener((now, before) -> {
            if (now == KafkaStreams.State.ERROR || now == KafkaStreams.State.PENDING_ERROR) {
                stopped.countDown();
            }
        });
        app.start();
        long end = System.currentTimeMillis() + DEADLINE_MS;
        try {
            while (counted.get() < n && stopped.getCount() > 0) {
                if (System.currentTimeMillis() > end) {
                    throw new TimedOut(seen.get() + " read, " + counted.get() + " counted of " + n);
                }
                stopped.await(100, TimeUnit.MILLISECONDS);
            }
            if (failure.get() != null) {
                throw new RuntimeException(failure.get());
            }
            if (stopped.getCount() == 0) {
                throw new IllegalStateException("the application stopped in state " + app.state());
            }
            Thread.sleep(1500);  // a few commits: the counts reach the output topic and the repartition topic is purged
            if (failure.get() != null) {
                throw new RuntimeException(failure.get());
            }
        } finally {
            app.close(Duration.ofSeconds(15));
        }
    }

    static void connect(Properties base, String group, String topic, String name, String in, String out, int n)
            throws Exception {
        Map<String, String> worker = new HashMap<>();
        for (String key : base.stringPropertyNames()) {
            String value = base.getProperty(key);
            worker.put(key, value);
            if (!key.equals("bootstrap.servers")) {  // the connectors' own clients: the same principal
                worker.put("producer." + key, value);
                worker.put("consumer." + key, value);
                worker.put("admin." + key, value);
            }
        }
        worker.put("group.id", group);
        worker.put("config.storage.topic", group + "-configs");
        worker.put("offset.storage.topic", group + "-offsets");
        worker.put("status.storage.topic", group + "-status");
        worker.put("config.storage.replication.factor", "-1");
        worker.put("offset.storage.replication.factor", "-1");
        worker.put("status.storage.replication.factor", "-1");
        worker.put("offset.storage.partitions", "1");
        worker.put("status.storage.partitions", "1");
        worker.put("key.converter", "org.apache.kafka.connect.storage.StringConverter");
        worker.put("value.converter", "org.apache.kafka.connect.storage.StringConverter");
        worker.put("offset.flush.interval.ms", "500");
        worker.put("listeners", "http://127.0.0.1:0");
        worker.put("plugin.discovery", "only_scan");
        Connect<?> connect = new ConnectDistributed().startConnect(worker);
        try {
            Herder herder = connect.herder();
            put(herder, name + "-source", Map.of("name", name + "-source", "connector.class", "org.apache.kafka.connect.file.FileStreamSourceConnector",
                    "tasks.max", "1", "file", in, "topic", topic));
            put(herder, name + "-sink", Map.of("name", name + "-sink", "connector.class", "org.apache.kafka.connect.file.FileStreamSinkConnector",
                    "tasks.max", "1", "file", out, "topics", topic));
            long end = System.currentTimeMillis() + DEADLINE_MS;
            while (true) {
                for (String c : List.of(name + "-source", name + "-sink")) {
                    ConnectorStateInfo status;
                    try {
                        status = herder.connectorStatus(c);
                    } catch (Exception notYet) {
                        continue;
                    }
                    for (ConnectorStateInfo.AbstractState state : states(status)) {
                        if ("FAILED".equals(state.state())) {
                            throw new IllegalStateException(c + " failed: " + state.trace());
                        }
                    }
                }
                Path path = Path.of(out);
                if (Files.exists(path) && Files.readAllLines(path).size() >= n) {
                    return;
                }
                if (System.currentTimeMillis() > end) {
                    throw new TimedOut((Files.exists(path) ? Files.readAllLines(path).size() : 0) + " of " + n
                            + " lines through the connectors");
                }
                Thread.sleep(200);
            }
        } finally {
            connect.stop();
        }
    }

    static List<ConnectorStateInfo.AbstractState> states(ConnectorStateInfo status) {
        List<ConnectorStateInfo.AbstractState> out = new java.util.ArrayList<>();
        out.add(status.connector());
        out.addAll(status.tasks());
        return out;
    }

    static void put(Herder herder, String name, Map<String, String> config) throws Exception {
        FutureCallback<Herder.Created<org.apache.kafka.connect.runtime.rest.entities.ConnectorInfo>> done =
                new FutureCallback<>();
        herder.putConnectorConfig(name, config, true, done);
        done.get(DEADLINE_MS, TimeUnit.MILLISECONDS);
    }

    static Properties load(String path) throws Exception {
        Properties p = new Properties();
        try (FileReader in = new FileReader(path)) {
            p.load(in);
        }
        return p;
    }

    static void commit(Properties base, String topic, String group, int n) throws TimedOut {
        Properties p = new Properties();
        p.putAll(base);
        p.put("group.id", group);
        p.put("auto.offset.reset", "earliest");
        p.put("enable.auto.commit", "false");
        try (KafkaConsumer<String, String> c = new KafkaConsumer<>(p, new StringDeserializer(), new StringDeserializer())) {
            c.subscribe(List.of(topic));
            readAtLeast(c, n, System.currentTimeMillis() + DEADLINE_MS, "records of " + topic);
            c.commitSync();
        }
    }

    static void readAtLeast(KafkaConsumer<String, String> c, int n, long end, String what) throws TimedOut {
        int seen = 0;
        while (seen < n) {
            if (System.currentTimeMillis() > end) {
                throw new TimedOut(seen + " of " + n + " " + what);
            }
            seen += c.poll(Duration.ofMillis(500)).count();
        }
    }

    static void readMatching(KafkaConsumer<String, String> c, String needle, long end, String what)
            throws TimedOut {
        while (true) {
            if (System.currentTimeMillis() > end) {
                throw new TimedOut("no " + what);
            }
            for (var record : c.poll(Duration.ofMillis(500))) {
                if (record.key() != null && record.key().contains(needle)) {
                    return;
                }
            }
        }
    }

    static void mirror(Properties src, Properties dst, String readerProps, String from, String to, String topic,
                       String group, int n) throws Exception {
        Map<String, String> mm = new HashMap<>();
        mm.put("clusters", from + ", " + to);
        for (String alias : List.of(from, to)) {
            Properties base = alias.equals(from) ? src : dst;
            for (String key : base.stringPropertyNames()) {
                mm.put(alias + "." + key, base.getProperty(key));
            }
            mm.put(alias + ".config.storage.replication.factor", "-1");
            mm.put(alias + ".offset.storage.replication.factor", "-1");
            mm.put(alias + ".status.storage.replication.factor", "-1");
        }
        mm.put(from + "->" + to + ".enabled", "true");
        mm.put(from + "->" + to + ".topics", java.util.regex.Pattern.quote(topic));
        mm.put(from + "->" + to + ".groups", java.util.regex.Pattern.quote(group));
        mm.put("sync.topic.acls.enabled", "false");
        mm.put("replication.factor", "-1");
        mm.put("offset-syncs.topic.replication.factor", "-1");
        mm.put("checkpoints.topic.replication.factor", "-1");
        mm.put("heartbeats.topic.replication.factor", "-1");
        mm.put("refresh.topics.interval.seconds", "1");
        mm.put("refresh.groups.interval.seconds", "1");
        mm.put("sync.topic.configs.interval.seconds", "1");
        mm.put("sync.topic.acls.interval.seconds", "1");
        mm.put("emit.heartbeats.interval.seconds", "1");
        mm.put("emit.checkpoints.interval.seconds", "1");
        mm.put("offset.flush.interval.ms", "500");
        mm.put("dedicated.mode.enable.internal.rest", "false");
        MirrorMaker mirror = new MirrorMaker(mm, List.of(to));
        mirror.start();
        Properties r = load(readerProps);
        r.put("group.id", "reader-" + System.nanoTime());
        r.put("auto.offset.reset", "earliest");
        r.put("metadata.max.age.ms", "500");  // the mirrored topic appears after the reader subscribes
        try (KafkaConsumer<String, String> reader = new KafkaConsumer<>(r, new StringDeserializer(),
                new StringDeserializer())) {
            long end = System.currentTimeMillis() + DEADLINE_MS;
            reader.subscribe(java.util.regex.Pattern.compile(java.util.regex.Pattern.quote(from + "." + topic)));
            readAtLeast(reader, n, end, "records mirrored");
            reader.unsubscribe();
            reader.subscribe(List.of(from + ".checkpoints.internal"));
            readAtLeast(reader, 1, end, "checkpoints of group " + group);
            reader.unsubscribe();
            reader.subscribe(List.of("heartbeats"));
            // this run's own (its key holds the two aliases): other runs' heartbeats may be in the topic already
            readMatching(reader, from, end, "heartbeats of " + from + " in the target's heartbeats topic");
            Thread.sleep(1500);  // its periodic tasks (topic config sync) run at least once more
        } finally {
            mirror.stop();
        }
    }
}
