# The live listing: one row per live version with what the public lists show of it
# (rows rendered at publish, A–Z keys), the objects it names in A–Z order, and counts kept
# per letter and per object, so a list page reads one page from an index instead of
# sorting, counting and rendering every live entry (bench/README.md).
#
# Search moves with it: PostgreSQL's vectors live on the listing (migration 0016 indexes
# them), so EntryVersion.search_vector goes. The rows are filled by `manage.py rerender`,
# which every deploy runs after migrating (docker/release.sh).

import django.contrib.postgres.search
import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('glossary', '0014_a_to_z_lists_read_an_index'),
    ]

    operations = [
        migrations.CreateModel(
            name='Listing',
            fields=[
                ('version', models.OneToOneField(on_delete=django.db.models.deletion.CASCADE, primary_key=True, related_name='listing', serialize=False, to='glossary.entryversion')),
                ('initial', models.PositiveSmallIntegerField(help_text='0 for “#”, 1–26 for A–Z.')),
                ('sort_key', models.CharField(help_text='The term in lowercase.', max_length=200)),
                ('term', models.CharField(max_length=200)),
                ('slug', models.SlugField(max_length=200)),
                ('names', models.TextField(help_text='The term and its aliases, one a line.')),
                ('row_html', models.TextField(blank=True, help_text='Its row in the A–Z index, a tag, search.')),
                ('feed_entry', models.TextField(blank=True, help_text='Its Atom <entry>.')),
                ('sitemap_url', models.TextField(blank=True, help_text='Its sitemap <url>.')),
                ('api_row', models.TextField(blank=True, help_text="Its item in the API's entry list (JSON).")),
                ('words_a', django.contrib.postgres.search.SearchVectorField(editable=False, null=True)),
                ('words_ab', django.contrib.postgres.search.SearchVectorField(editable=False, null=True)),
                ('words_abc', django.contrib.postgres.search.SearchVectorField(editable=False, null=True)),
                ('words_abcd', django.contrib.postgres.search.SearchVectorField(editable=False, null=True)),
            ],
        ),
        migrations.CreateModel(
            name='ListingCount',
            fields=[
                ('pk', models.CompositePrimaryKey('kind', 'object_id', blank=True, editable=False, primary_key=True, serialize=False)),
                ('kind', models.CharField(help_text='“total”, “letter” or the kind of a public record.', max_length=12)),
                ('object_id', models.PositiveBigIntegerField(help_text='0, the letter (0–26) or the object.')),
                ('live', models.IntegerField(default=0, help_text='How many listed versions.')),
            ],
        ),
        migrations.CreateModel(
            name='ListingName',
            fields=[
                ('pk', models.CompositePrimaryKey('listing_id', 'kind', 'object_id', blank=True, editable=False, primary_key=True, serialize=False)),
                ('listing', models.ForeignKey(db_index=False, on_delete=django.db.models.deletion.CASCADE, related_name='names_of', to='glossary.listing')),
                ('kind', models.CharField(choices=[('show', 'Show'), ('episode', 'Episode'), ('person', 'Person'), ('organisation', 'Organisation'), ('source', 'Source'), ('tag', 'Tag')], max_length=12)),
                ('object_id', models.PositiveBigIntegerField()),
                ('initial', models.PositiveSmallIntegerField()),
                ('sort_key', models.CharField(max_length=200)),
                ('term', models.CharField(max_length=200)),
                ('part', models.TextField(blank=True, help_text="What the object's page shows of the version (JSON; glossary.listing_rows): a person's quotes, an episode's moments, an organisation's disclosures.")),
            ],
        ),
        migrations.RemoveField(
            model_name='entryversion',
            name='search_vector',
        ),
        migrations.AlterField(
            model_name='entryversion',
            name='search_names',
            field=models.TextField(blank=True, help_text="The term and its aliases, one a line (search matches misspellings against the live listing's copy, Listing.names)."),
        ),
        migrations.AddIndex(
            model_name='listing',
            index=models.Index(fields=['initial', 'sort_key', 'term', 'version'], name='listing_a_to_z_idx'),
        ),
        migrations.AddIndex(
            model_name='listingname',
            index=models.Index(fields=['kind', 'object_id', 'initial', 'sort_key', 'term', 'listing'], name='listingname_object_idx'),
        ),
    ]
