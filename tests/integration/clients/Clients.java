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
        int code;
        try {
            switch (args[0]) {
                case "txn-producer" -> txnProducer(props, args[2], args[3], Integer.parseInt(args[4]));
                case "share-consumer" -> shareConsumer(props, args[2], args[3], Integer.parseInt(args[4]));
                case "streams" -> streams(props, args[2], args[3], args[4], Integer.parseInt(args[5]), args[6]);
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
}
